"""The session's lifecycle: the live link for a call, renewal, disconnect, reconfigure, delete.

Disconnecting, deleting or reconfiguring bumps the connector's generation and
cancels a discovery in flight, so a late discovery never installs a session
for a configuration that is gone.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..errors import SvcError
from .client import McpLink
from .connector_discovery import ConnectorDiscovery
from .connector_messages import TOPIC
from .connector_state import settings_of
from .errors import McpDisabled, McpNotConnected
from .records import ConnectorConfig


class ConnectorSession(ConnectorDiscovery):
    """The session's lifecycle (see the module docstring)."""

    async def _ready_link(self) -> McpLink:
        """The live session, connecting (or joining a connect in flight) when there is none."""
        for _ in range(2):
            link = self.link
            if link is not None and link.alive and self.state.connected:
                return link
            if not self.config.enabled:
                raise McpDisabled(f"MCP server `{self.server}` is disabled", name=self.server)
            discovery = self.discovery or self._begin_discovery(
                "reconnect" if self.state.connected else "connect", "call"
            )
            try:
                await discovery.pending.wait()
            except SvcError as exc:
                raise McpNotConnected(
                    f"MCP server `{self.server}` is not connected: {exc.message}", name=self.server
                ) from None
        raise McpNotConnected(f"MCP server `{self.server}` is not connected", name=self.server)

    async def _renew(self, expired: McpLink) -> McpLink:
        if self.link is expired:
            # No DELETE: the server has already forgotten this session.
            expired.abort()
            self.link = None
            self.state = attrs.evolve(self.state, mcp_session_id=None)
            self._publish()
        return await self._ready_link()

    async def _disconnect(self, reason: str) -> dict[str, Any]:
        was_connected = self.state.connected or self.link is not None
        self._drop_session()
        removed = self._clear_state(last_error=None)
        await self._save()
        if was_connected or removed:
            self.s.events.publish(
                "mcp.server.disconnected",
                {
                    "name": self.server,
                    "reason": reason,
                    "removedToolCount": removed,
                    "remainingToolCount": 0,
                },
                topic=TOPIC,
            )
        return {"ok": True, "removedToolCount": removed}

    def _drop_session(self) -> McpLink | None:
        """Cancel any discovery in flight and start ending the session (``DELETE``); returns
        its link."""
        self.generation += 1
        if self.discovery is not None:
            self.discovery.pending.scope.cancel()
            self.discovery = None
        link, self.link = self.link, None
        if link is not None:
            self._retire(link, graceful=True)
        return link

    async def _reconfigure(self, config: ConnectorConfig) -> dict[str, Any]:
        old = self.config
        self.config = config
        await self.s.repo.save_config(config)
        if not config.enabled and old.enabled:
            result = await self._disconnect("disabled")
            self.s.events.publish(
                "mcp.server.updated", {"name": self.server, "enabled": False}, topic=TOPIC
            )
            return {"changed": True, **result}
        if not old.same_identity(config) and (self.state.connected or self.link is not None):
            # New endpoint or credentials: the old session and tools belong to the old identity.
            result = await self._disconnect("reconfigured")
            self.s.events.publish(
                "mcp.server.updated", {"name": self.server, "enabled": config.enabled}, topic=TOPIC
            )
            return {"changed": True, **result}
        before = {t.tool_id for t in self.snapshot().registered_tools()}
        self._sync_registry()
        self._publish()
        after = self.snapshot().registered_tools()
        self.s.events.publish(
            "mcp.server.updated", {"name": self.server, "enabled": config.enabled}, topic=TOPIC
        )
        if self.state.connected and config.enabled and before != {t.tool_id for t in after}:
            self.s.events.publish(
                "mcp.tools.updated",
                {
                    "name": self.server,
                    "source": "allowed_tools",
                    "count": len(after),
                    "discoveredCount": len(self.state.tool_cache),
                    "changed": True,
                },
                topic=TOPIC,
            )
        return {"changed": settings_of(config) != settings_of(old), "removedToolCount": 0}

    async def _delete(self) -> dict[str, Any]:
        link = self._drop_session()
        removed = self._clear_state(last_error=None)
        await self.s.repo.delete(self.server)
        self.s.events.publish(
            "mcp.server.deleted", {"name": self.server, "removedToolCount": removed}, topic=TOPIC
        )
        if link is not None:
            # Stopping cancels the nursery, DELETE included: let it finish first (bounded).
            await link.wait_closed()
        self.stop()
        return {"ok": True, "removedToolCount": removed}

    async def _close_session(self) -> bool:
        link = self.link
        if link is None:
            return False
        self.generation += 1
        self.link = None
        link.close()
        await link.wait_closed()
        return True


__all__ = ["ConnectorSession"]
