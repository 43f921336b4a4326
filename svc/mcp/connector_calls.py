"""Tool calls: resolving the tool, repairing its arguments, one renewal, the deadline.

Each call runs as a task in the actor's nursery, bounded by the connector's
call timeout, and answers through a :class:`~.connector_messages.Pending`. A
session the server forgot (HTTP 404) is renewed once and the call sent again;
a lost connection is never re-sent (the server may have run the call).
"""

from __future__ import annotations

import logging

import trio

from ..errors import SvcError
from ..tools import ToolResult
from .arguments import repair_arguments
from .auth import find_challenge
from .client import BadResponse, LinkLost, RpcError, SessionExpired
from .connector_auth import ConnectorAuth
from .connector_messages import CallTool, Pending
from .errors import (
    McpCallFailed,
    McpCallTimeout,
    McpConnectionLost,
    McpDisabled,
    McpToolNotFound,
)
from .naming import server_prefix, slug
from .records import CachedTool
from .results import to_tool_result

log = logging.getLogger("svc.mcp")


class ConnectorCalls(ConnectorAuth):
    """Tool calls through the connector's session (see the module docstring)."""

    def _call(self, message: CallTool) -> Pending[ToolResult]:
        if not self.config.enabled:
            raise McpDisabled(f"MCP server `{self.server}` is disabled", name=self.server)
        tool = self._find_tool(message.tool)
        if tool is None and self.state.connected:
            raise McpToolNotFound(
                f"MCP server `{self.server}` has no tool `{message.tool}`",
                name=self.server,
                tool=message.tool,
            )
        if tool is not None:
            short = self._short_circuit(tool, message.caller)
            if short is not None:
                return Pending.resolved(short)
        pending: Pending[ToolResult] = Pending()
        self.nursery.start_soon(self._run_call, pending, message, tool)
        return pending

    def _find_tool(self, wanted: str) -> CachedTool | None:
        """By remote name or tool ID; then ignoring case; then by slug (``search_issues``)."""
        cache = self.state.tool_cache
        # The exact match first, without building anything: it is every call's path.
        found = next((t for t in cache if wanted == t.tool_name or wanted == t.tool_id), None)
        if found is not None:
            return found
        lowered = wanted.lower()
        found = next(
            (t for t in cache if lowered == t.tool_name.lower() or lowered == t.tool_id), None
        )
        if found is not None:
            return found
        bare = server_prefix(self.server) + slug(wanted)
        return next((t for t in cache if t.tool_id == bare), None)

    async def _run_call(
        self, pending: Pending[ToolResult], message: CallTool, tool: CachedTool | None
    ) -> None:
        with pending.scope:
            pending.scope.deadline = trio.current_time() + self.s.call_timeout_s()
            try:
                pending.resolve(await self._call_through(message, tool))
            except SvcError as exc:
                pending.fail(exc)
            except Exception as exc:
                log.exception("mcp call to %s failed unexpectedly", self.server)
                pending.fail(
                    McpCallFailed(
                        f"calling `{message.tool}` failed: {type(exc).__name__}", name=self.server
                    )
                )
        if pending.scope.cancelled_caught:
            pending.fail(
                McpCallTimeout(
                    f"MCP server `{self.server}` did not answer `{message.tool}` within "
                    f"{self.s.call_timeout_s():g}s",
                    name=self.server,
                    tool=message.tool,
                )
            )

    async def _call_through(self, message: CallTool, tool: CachedTool | None) -> ToolResult:
        link = await self._ready_link()
        if tool is None:
            # Not known before connecting: resolve and check it now.
            tool = self._find_tool(message.tool)
            if tool is None:
                raise McpToolNotFound(
                    f"MCP server `{self.server}` has no tool `{message.tool}`",
                    name=self.server,
                    tool=message.tool,
                )
            short = self._short_circuit(tool, message.caller)
            if short is not None:
                return short
        arguments = repair_arguments(tool.input_schema, message.arguments)
        try:
            try:
                raw = await link.call_tool(tool.tool_name, arguments)
            except SessionExpired:
                # HTTP 404 to our session id: the server forgot it, and did not run
                # the call. A new session, then the same call once more.
                link = await self._renew(link)
                raw = await link.call_tool(tool.tool_name, arguments)
            except LinkLost:
                # The connection broke: whether the server ran the call is unknown, so
                # only a tool the server says is read-only or idempotent is sent again
                # (once, on a new session); any other call fails as lost.
                if not tool.retry_safe:
                    raise
                link = await self._renew(link)
                raw = await link.call_tool(tool.tool_name, arguments)
        except (LinkLost, SessionExpired) as exc:
            raise McpConnectionLost(
                self._scrub(f"the connection to MCP server `{self.server}` was lost: {exc}"),
                name=self.server,
                tool=tool.tool_id,
            ) from None
        except RpcError as exc:
            challenge = self._scrubbed(
                find_challenge(
                    tool.tool_name, exc.to_wire(), now_ms=self.s.clock.now_ms(), failed=True
                )
            )
            if challenge is not None:
                return await self._challenged(tool, challenge, message.caller)
            raise McpCallFailed(
                self._scrub(
                    f"MCP server `{self.server}` refused `{tool.tool_name}`: {exc.message}"
                ),
                name=self.server,
                tool=tool.tool_id,
                rpcCode=exc.code,
            ) from None
        except BadResponse as exc:
            raise McpCallFailed(
                self._scrub(f"MCP server `{self.server}` answered `{tool.tool_name}` badly: {exc}"),
                name=self.server,
                tool=tool.tool_id,
            ) from None
        challenge = self._scrubbed(
            find_challenge(
                tool.tool_name, raw, now_ms=self.s.clock.now_ms(), failed=bool(raw.get("isError"))
            )
        )
        if challenge is not None:
            return await self._challenged(tool, challenge, message.caller)
        await self._authorized(tool)
        return to_tool_result(
            self.server, tool.tool_name, raw, tool_id=tool.tool_id, scrub=self._scrub
        )


__all__ = ["ConnectorCalls"]
