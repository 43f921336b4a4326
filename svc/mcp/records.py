"""The records of the MCP domain: a connector's configuration and its runtime state.

A connector's *configuration* (``POST /mcp``) is what the operator chose; its
*state* is what the connector actor learned (session, tools, challenges). Both
are persisted, so a restarted actor keeps its configuration and knows whether
it was connected. A :class:`ConnectorSnapshot` pairs them for read views.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..logs import REDACTED
from .auth import AuthChallenge, PendingAuth
from .naming import server_prefix, tool_allowed


def _tuple_or_none(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen
class ConnectorConfig:
    name: str
    transport: str
    """The Streamable HTTP endpoint URL."""
    enabled: bool = True
    headers: Mapping[str, str] = attrs.field(factory=dict)
    """Sent on every request. Values may hold ``${env:NAME}`` references; never shown."""
    allowed_tools: tuple[str, ...] | None = attrs.field(default=None, converter=_tuple_or_none)
    """None exposes every tool; a list exposes only the matching ones (empty: none)."""
    created_at_ms: int = 0
    updated_at_ms: int = 0

    def same_identity(self, other: ConnectorConfig) -> bool:
        """Same endpoint and same credentials: an existing session and tool cache stay valid."""
        return self.transport == other.transport and dict(self.headers) == dict(other.headers)

    def redacted_headers(self) -> dict[str, str]:
        return {name: REDACTED for name in sorted(self.headers)}


@attrs.frozen
class CachedTool:
    """One remote tool as discovered by ``tools/list``."""

    tool_name: str
    """The server's own name for it (what ``tools/call`` sends)."""
    tool_id: str
    """``mcp.<server>.<tool>`` in the global registry."""
    description: str
    input_schema: Mapping[str, Any]
    fetched_at_ms: int
    schema_hash: str
    retry_safe: bool = False
    """The server marks the tool read-only or idempotent (its ``annotations``): a call
    whose connection broke is sent once more, on a new session."""

    def to_wire(self) -> dict[str, Any]:
        return {
            "tool_name": self.tool_name,
            "namespaced_name": self.tool_id,
            "description": self.description,
            "input_schema": dict(self.input_schema),
            "fetched_at_ms": self.fetched_at_ms,
            "schema_hash": self.schema_hash,
            "retry_safe": self.retry_safe,
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CachedTool:
        return cls(
            tool_name=data["tool_name"],
            tool_id=data["namespaced_name"],
            description=data.get("description", ""),
            input_schema=data.get("input_schema") or {"type": "object", "properties": {}},
            fetched_at_ms=int(data.get("fetched_at_ms") or 0),
            schema_hash=data.get("schema_hash", ""),
            retry_safe=data.get("retry_safe") is True,
        )


@attrs.frozen
class ConnectorState:
    connected: bool = False
    last_error: str | None = None
    last_auth_challenge: AuthChallenge | None = None
    mcp_session_id: str | None = None
    tool_cache: tuple[CachedTool, ...] = ()
    tools_fetched_at_ms: int | None = None
    pending_auth_by_tool: Mapping[str, PendingAuth] = attrs.field(factory=dict)
    server_info: Mapping[str, Any] | None = None
    """``serverInfo`` from ``initialize`` (name, version)."""
    protocol_version: str | None = None
    updated_at_ms: int = 0

    def disconnected(self, *, last_error: str | None, now_ms: int) -> ConnectorState:
        """The state after a disconnect or a failure: no session, no cached tools, no challenges."""
        return ConnectorState(last_error=last_error, updated_at_ms=now_ms)


@attrs.frozen
class ConnectorSnapshot:
    """A connector as the read side sees it (GET /mcp, /mcp/tools, mcp_list, the catalog
    overlay)."""

    config: ConnectorConfig
    state: ConnectorState

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def usable(self) -> bool:
        """Connected and enabled: its tools execute (SPEC 3.1)."""
        return self.config.enabled and self.state.connected

    def allows(self, tool: CachedTool) -> bool:
        return tool_allowed(
            self.config.allowed_tools, server=self.name, tool=tool.tool_name, tool_id=tool.tool_id
        )

    def allowed_tools(self) -> list[CachedTool]:
        return [t for t in self.state.tool_cache if self.allows(t)]

    def registered_tools(self) -> list[CachedTool]:
        """The tools this connector puts in the global registry."""
        return self.allowed_tools() if self.usable else []

    def to_wire(self) -> dict[str, Any]:
        """One entry of ``GET /mcp`` (header values redacted)."""
        state = self.state
        challenge = state.last_auth_challenge
        return {
            "name": self.name,
            "transport": self.config.transport,
            "enabled": self.config.enabled,
            "connected": state.connected,
            "last_error": state.last_error,
            "last_auth_challenge": challenge.to_wire() if challenge else None,
            "mcp_session_id": state.mcp_session_id,
            "headers": self.config.redacted_headers(),
            "allowed_tools": list(self.config.allowed_tools)
            if self.config.allowed_tools is not None
            else None,
            "tool_cache": [t.to_wire() for t in state.tool_cache],
            "tools_fetched_at_ms": state.tools_fetched_at_ms,
            "pending_auth_by_tool": {
                k: v.to_wire() for k, v in sorted(state.pending_auth_by_tool.items())
            },
            "tool_prefix": server_prefix(self.name),
            "tool_count": len(state.tool_cache),
            "registered_tool_count": len(self.registered_tools()),
            "server_info": dict(state.server_info) if state.server_info else None,
            "protocol_version": state.protocol_version,
            "created_at_ms": self.config.created_at_ms,
            "updated_at_ms": max(self.config.updated_at_ms, state.updated_at_ms),
        }


__all__ = ["CachedTool", "ConnectorConfig", "ConnectorSnapshot", "ConnectorState"]
