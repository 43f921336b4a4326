"""The ``mcp_list`` inventory: servers, their remote and registered tools, challenges."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .records import ConnectorSnapshot


def inventory(snapshots: Sequence[ConnectorSnapshot]) -> dict[str, Any]:
    """The ``mcp_list`` snapshot: servers, their remote and registered tools, challenges."""
    from .catalog import INVENTORY_VERSION

    servers: list[dict[str, Any]] = []
    for s in snapshots:
        remote = [t.tool_name for t in s.state.tool_cache]
        registered = [t.tool_id for t in s.registered_tools()]
        challenge = s.state.last_auth_challenge
        servers.append(
            {
                "name": s.name,
                "transport": s.config.transport,
                "enabled": s.config.enabled,
                "connected": s.state.connected,
                "last_error": s.state.last_error,
                "last_auth_challenge": challenge.to_wire() if challenge else None,
                "pending_auth_tools": sorted(s.state.pending_auth_by_tool),
                "allowed_tools": list(s.config.allowed_tools)
                if s.config.allowed_tools is not None
                else None,
                "remote_tool_count": len(remote),
                "discovered_tool_count": len(remote),
                "allowed_tool_count": len(s.allowed_tools()),
                "registered_tool_count": len(registered),
                "remote_tools": remote,
                "registered_tools": registered,
            }
        )
    return {
        "inventory_version": INVENTORY_VERSION,
        "registry_version": 1,
        "connected_server_names": [s["name"] for s in servers if s["connected"]],
        "enabled_server_names": [s["name"] for s in servers if s["enabled"]],
        "remote_tool_count": sum(s["remote_tool_count"] for s in servers),
        "registered_tool_count": sum(s["registered_tool_count"] for s in servers),
        "remote_tools": [f"{s['name']}.{t}" for s in servers for t in s["remote_tools"]],
        "registered_tools": [t for s in servers for t in s["registered_tools"]],
        "servers": servers,
    }


__all__ = ["inventory"]
