"""Authorization challenges: the cooldown answer, recording a challenge, clearing it.

A tool that answered with an authorization challenge is not called again
until its cooldown has passed (the ledger, :class:`~.auth.AuthLedger`): the
caller gets a "pending" result at once. The ledger is stored before a caller
hears of a challenge, so a restarted connector keeps the cooldown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..tools import ToolResult
from .auth import AuthChallenge, pending_text, required_text
from .connector_messages import TOPIC, ToolCaller
from .connector_session import ConnectorSession
from .errors import McpToolNotAllowed
from .records import CachedTool


class ConnectorAuth(ConnectorSession):
    """Authorization challenges of the connector's tools (see the module docstring)."""

    def _check_allowed(self, tool: CachedTool) -> None:
        if not self.snapshot().allows(tool):
            raise McpToolNotAllowed(
                f"tool `{tool.tool_id}` is not in the allowed_tools of MCP server `{self.server}`",
                name=self.server,
                tool=tool.tool_id,
            )

    def _short_circuit(self, tool: CachedTool, caller: ToolCaller) -> ToolResult | None:
        """The cooldown answer for a tool waiting for authorization; None lets the call go out."""
        self._check_allowed(tool)
        now = self.s.clock.now_ms()
        remaining = self.ledger.remaining_ms(tool.tool_name, now)
        entry = self.ledger.entry(tool.tool_name)
        if remaining is None or entry is None:
            if self.ledger.probe(tool.tool_name, now):
                self._store_ledger()
                self.nursery.start_soon(self._save)
            return None
        auth = {
            "required": True,
            "pending": True,
            "blocked": True,
            "retryAfterMs": remaining,
            "challengeId": entry.challenge_id,
            "tool": tool.tool_name,
            "authorizationUrl": entry.authorization_url,
            "message": entry.message,
            "status": entry.status,
        }
        self._auth_event("mcp.auth.pending", tool, caller, auth)
        return ToolResult(
            pending_text(tool.tool_id, entry, remaining),
            {"server": self.server, "tool": tool.tool_name, "mcpAuth": auth},
        )

    async def _challenged(
        self, tool: CachedTool, challenge: AuthChallenge, caller: ToolCaller
    ) -> ToolResult:
        now = self.s.clock.now_ms()
        entry = self.ledger.challenged(challenge, now)
        self.state = attrs.evolve(self.state, last_auth_challenge=challenge, last_error=None)
        self._store_ledger()
        # Stored before the caller hears of it: a restarted connector keeps the cooldown.
        await self._save()
        auth = {
            "required": True,
            "pending": False,
            "blocked": False,
            "challengeId": entry.challenge_id,
            "tool": tool.tool_name,
            "authorizationUrl": challenge.authorization_url,
            "message": challenge.message,
            "status": challenge.status,
        }
        self._auth_event("mcp.auth.required", tool, caller, auth)
        return ToolResult(
            required_text(tool.tool_id, challenge),
            {"server": self.server, "tool": tool.tool_name, "mcpAuth": auth},
        )

    async def _authorized(self, tool: CachedTool) -> None:
        """A call went through without a challenge: the tool is no longer waiting."""
        cleared = self.ledger.cleared(tool.tool_name)
        last = self.state.last_auth_challenge
        if last is not None and last.tool_name.lower() == tool.tool_name.lower():
            self.state = attrs.evolve(self.state, last_auth_challenge=None)
            cleared = True
        if cleared:
            self._store_ledger()
            await self._save()

    def _auth_event(
        self, type: str, tool: CachedTool, caller: ToolCaller, auth: Mapping[str, Any]
    ) -> None:
        properties: dict[str, Any] = {
            "tool": tool.tool_id,
            "server": self.server,
            "remoteTool": tool.tool_name,
            "authorizationUrl": auth["authorizationUrl"],
            "message": auth["message"],
            "challengeId": auth["challengeId"],
            "pending": auth["pending"],
            "blocked": auth["blocked"],
        }
        if "retryAfterMs" in auth:
            properties["retryAfterMs"] = auth["retryAfterMs"]
        for key, value in (
            ("sessionID", caller.session_id),
            ("runID", caller.run_id),
            ("messageID", caller.message_id),
            ("callID", caller.call_id),
        ):
            if value is not None:
                properties[key] = value
        self.s.events.publish(type, properties, topic=TOPIC)


__all__ = ["ConnectorAuth"]
