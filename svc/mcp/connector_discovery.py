"""Discovery: opening the connector's MCP session and listing its tools.

A connect, a refresh, or a reconnect (after a crash or a lost connection) is
one :class:`~.connector_state.Discovery` at a time, running in the actor's
nursery; callers that arrive meanwhile join it. Its end is a synchronous
section that installs the new session and tool cache (or records why not),
so it never interleaves with a message.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

import attrs
import trio

from ..errors import ValidationFailed
from .auth import AuthChallenge, find_challenge
from .client import LinkError, McpLink, RpcError, SessionExpired, run_link
from .connector_messages import TOPIC, ConnectOutcome, Pending
from .connector_state import ConnectorBase, Discovery
from .endpoint import resolve_headers
from .errors import McpConnectFailed, McpDisabled, McpNotConnected, McpRefreshFailed
from .naming import assign_ids
from .records import CachedTool, ConnectorState
from .schemas import normalize_input_schema, schema_hash

log = logging.getLogger("svc.mcp")


class ConnectorDiscovery(ConnectorBase):
    """Connect, refresh and reconnect (see the module docstring)."""

    def _connect(self, kind: str, source: str) -> Pending[ConnectOutcome]:
        if not self.config.enabled:
            self.state = attrs.evolve(self.state, last_error="MCP server is disabled")
            self._publish()
            failed: Pending[ConnectOutcome] = Pending()
            failed.fail(McpDisabled(f"MCP server `{self.server}` is disabled", name=self.server))
            return failed
        if self.discovery is not None:
            return self.discovery.pending
        return self._begin_discovery(kind, source).pending

    def _begin_discovery(self, kind: str, source: str) -> Discovery:
        discovery = Discovery(kind, source, Pending(shared=True), self.generation)
        self.discovery = discovery
        self.nursery.start_soon(self._discover, discovery)
        return discovery

    async def _discover(self, d: Discovery) -> None:
        reuse = (
            self.link
            if (self.link is not None and self.link.alive and kind_reuses(d.kind))
            else None
        )
        error: BaseException | None = None
        tools: list[dict[str, Any]] = []
        link: McpLink | None = None
        with d.pending.scope:
            try:
                with trio.fail_after(self.s.connect_timeout_s()):
                    link = reuse or await self._open_link(d)
                    try:
                        tools = await link.list_tools()
                    except SessionExpired:
                        if reuse is None:
                            raise
                        # The server forgot the session we meant to reuse: one new session.
                        reuse.abort()
                        link = await self._open_link(d)
                        tools = await link.list_tools()
            except trio.TooSlowError:
                error = LinkError(f"no answer within {self.s.connect_timeout_s():g}s")
            except (LinkError, ValidationFailed) as exc:
                error = exc
        if self.discovery is d:
            self.discovery = None
        if d.pending.scope.cancelled_caught or d.generation != self.generation:
            # Superseded by a disconnect, reconfiguration or deletion: touch nothing.
            if d.opened is not None:
                d.opened.abort()
            d.pending.fail(
                McpNotConnected(
                    f"connecting MCP server `{self.server}` was cancelled", name=self.server
                )
            )
            return
        if error is not None or link is None:
            await self._discovery_failed(d, error or LinkError("no session"))
        else:
            await self._discovery_succeeded(d, link, tools)

    async def _open_link(self, d: Discovery) -> McpLink:
        headers = resolve_headers(self.config.headers, self.s.environ())
        oauth = self.s.oauth
        auth = await oauth(self.server, self.config.transport) if oauth is not None else None
        link: McpLink = await self.nursery.start(
            partial(
                run_link,
                self.config.transport,
                headers,
                on_lost=self._link_lost,
                on_tools_changed=self._tools_changed,
                auth=auth,
            )
        )
        d.opened = link
        return link

    async def _discovery_succeeded(
        self, d: Discovery, link: McpLink, raw_tools: list[dict[str, Any]]
    ) -> None:
        if self.link is not None and self.link is not link:
            self._retire(self.link)
        self.link = link
        was_connected = self.state.connected
        now = self.s.clock.now_ms()
        cache = self._build_cache(raw_tools, now)
        previous = {(t.tool_name, t.schema_hash, t.description) for t in self.state.tool_cache}
        changed = previous != {(t.tool_name, t.schema_hash, t.description) for t in cache}
        self.ledger.clear()
        self.state = ConnectorState(
            connected=True,
            mcp_session_id=link.session_id,
            tool_cache=tuple(cache),
            tools_fetched_at_ms=now,
            server_info=link.server_info,
            protocol_version=link.protocol_version,
            updated_at_ms=now,
        )
        self._sync_registry()
        self._publish()
        count = len(self.snapshot().registered_tools())
        ids = {"name": self.server, "source": d.source}
        if d.kind == "connect" or not was_connected:
            self.s.events.publish(
                "mcp.server.connected",
                {
                    **ids,
                    "serverName": (link.server_info or {}).get("name"),
                    "status": "connected",
                    "protocolVersion": link.protocol_version,
                    "toolCount": count,
                },
                topic=TOPIC,
            )
        self.s.events.publish(
            "mcp.tools.updated",
            {
                **ids,
                "count": count,
                "discoveredCount": len(cache),
                "changed": changed,
            },
            topic=TOPIC,
        )
        await self._save()
        d.pending.resolve(ConnectOutcome(count=count, discovered=len(cache), changed=changed))

    async def _discovery_failed(self, d: Discovery, error: BaseException) -> None:
        message = self._scrub(str(error) or type(error).__name__)
        challenge: AuthChallenge | None = None
        if isinstance(error, RpcError):
            challenge = self._scrubbed(
                find_challenge(
                    self.server, error.to_wire(), now_ms=self.s.clock.now_ms(), failed=True
                )
            )
            if challenge is not None:
                message = f"MCP server '{self.server}' requires authorization: {challenge.message}"
        if d.opened is not None and d.opened is not self.link:
            self._retire(d.opened, graceful=True)
        if self.link is not None:
            self._retire(self.link, graceful=True)
            self.link = None
        removed = self._clear_state(last_error=message, challenge=challenge)
        reason = {"connect": "connect_failed", "refresh": "refresh_failed"}.get(
            d.kind, "connection_lost"
        )
        self.s.events.publish(
            "mcp.server.disconnected",
            {
                "name": self.server,
                "reason": reason,
                "source": d.source,
                "removedToolCount": removed,
                "remainingToolCount": 0,
                "error": message,
            },
            topic=TOPIC,
        )
        await self._save()
        failure_type = McpRefreshFailed if d.kind == "refresh" else McpConnectFailed
        d.pending.fail(
            failure_type(
                message,
                name=self.server,
                pendingAuth=challenge is not None,
                lastAuthChallenge=challenge.to_wire() if challenge else None,
                authorizationUrl=challenge.authorization_url if challenge else None,
                removedToolCount=removed,
            )
        )

    def _build_cache(self, raw_tools: list[dict[str, Any]], now: int) -> list[CachedTool]:
        named = [t for t in raw_tools if isinstance(t.get("name"), str) and t["name"]]
        ids = assign_ids(self.server, [t["name"] for t in named])
        cache = []
        for tool in named:
            schema = normalize_input_schema(tool.get("inputSchema"))
            description = (
                tool.get("description") or ""
            ).strip() or f"MCP tool {tool['name']} from {self.server}"
            hints = tool.get("annotations")
            hints = hints if isinstance(hints, dict) else {}
            cache.append(
                CachedTool(
                    tool_name=tool["name"],
                    tool_id=ids[tool["name"]],
                    description=description,
                    input_schema=schema,
                    fetched_at_ms=now,
                    schema_hash=schema_hash(schema),
                    retry_safe=hints.get("readOnlyHint") is True
                    or hints.get("idempotentHint") is True,
                )
            )
        return cache

    def _link_lost(self, link: McpLink) -> None:
        """The SDK ended the session on its own (the server went away, an exchange broke)."""
        if link is not self.link:
            return
        self.link = None
        self.state = attrs.evolve(self.state, mcp_session_id=None)
        self._publish()
        if self.config.enabled and self.state.connected and self.discovery is None:
            # One immediate attempt at a new session; if it fails the connector is
            # disconnected (tools removed) and says why.
            self._begin_discovery("reconnect", "connection_lost")

    def _tools_changed(self, link: McpLink) -> None:
        """The server announced ``notifications/tools/list_changed``."""
        if link is self.link and self.discovery is None and self.state.connected:
            self._begin_discovery("refresh", "list_changed")


def kind_reuses(kind: str) -> bool:
    """Connect and refresh list tools over a live session; a reconnect always opens a new one."""
    return kind in ("connect", "refresh")


__all__ = ["ConnectorDiscovery", "kind_reuses"]
