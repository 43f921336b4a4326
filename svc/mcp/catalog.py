"""The catalog of known MCP servers, and its overlay on the configured connectors.

The catalog ships inside the package (``catalog_data/index.json``); an operator
may point ``mcp_catalog_path`` at another file of the same shape. The overlay
(SPEC 2.6, ``inventory_version`` 1) says, for every catalog entry, whether a
configured connector matches it and in which state, and names the connected
connectors the catalog does not know.

Matching: catalog entries are keyed by slug, name, server name, pack id and
transport URL; connectors by name and transport URL. Keys are compared after
normalising (lower case, every character outside ``[a-z0-9-]`` becomes ``-``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from .errors import McpCatalogUnavailable
from .records import ConnectorSnapshot

INVENTORY_VERSION = 1
_NON_KEY = re.compile(r"[^a-z0-9-]")
STATUSES = (
    "connected_enabled",
    "connected_disabled",
    "cataloged_not_connected",
    "cataloged_disabled",
    "uncataloged_connected",
)


def match_key(text: str) -> str:
    return _NON_KEY.sub("-", text.strip().lower()).strip("-")


@attrs.frozen
class Catalog:
    meta: Mapping[str, Any]
    servers: tuple[Mapping[str, Any], ...]

    def find(self, text: str) -> Mapping[str, Any] | None:
        """The entry a slug, name or URL refers to."""
        key = match_key(text)
        return next((entry for entry in self.servers if key and key in _catalog_keys(entry)), None)


def load_catalog(path: Path | None = None) -> Catalog:
    """The packaged catalog, or the file at ``path``. McpCatalogUnavailable if it cannot be read."""
    try:
        if path is not None:
            text = Path(path).expanduser().read_text(encoding="utf-8")
        else:
            text = (
                resources.files("svc.mcp")
                .joinpath("catalog_data/index.json")
                .read_text(encoding="utf-8")
            )
        data = json.loads(text)
    except (OSError, ValueError) as exc:
        raise McpCatalogUnavailable(f"MCP catalog is unavailable: {type(exc).__name__}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("servers"), list):
        raise McpCatalogUnavailable("MCP catalog is unavailable: `servers` is missing")
    servers = tuple(
        _entry(raw) for raw in data["servers"] if isinstance(raw, Mapping) and raw.get("slug")
    )
    meta = {k: v for k, v in data.items() if k != "servers"}
    return Catalog(meta, servers)


def _entry(raw: Mapping[str, Any]) -> dict[str, Any]:
    tool_names = [str(t) for t in raw.get("tool_names") or []]
    return {
        "slug": str(raw["slug"]),
        "name": str(raw.get("name") or raw["slug"]),
        "server_name": str(raw.get("server_name") or raw["slug"]),
        "description": str(raw.get("description") or ""),
        "transport_url": raw.get("transport_url"),
        "documentation_url": raw.get("documentation_url"),
        "requires_auth": bool(raw.get("requires_auth", False)),
        "auth_kind": raw.get("auth_kind"),
        "tool_names": tool_names,
        "tool_count": raw.get("tool_count", len(tool_names) or None),
        "use_cases": list(raw.get("use_cases") or []),
        "tags": list(raw.get("tags") or []),
        **({"pack_id": raw["pack_id"]} if raw.get("pack_id") else {}),
    }


def _catalog_keys(entry: Mapping[str, Any]) -> set[str]:
    fields = ("slug", "name", "server_name", "server_config_name", "pack_id", "transport_url")
    return {match_key(str(entry[f])) for f in fields if entry.get(f)} - {""}


def _connector_keys(snapshot: ConnectorSnapshot) -> set[str]:
    return {match_key(snapshot.name), match_key(snapshot.config.transport)} - {""}


def _status(snapshot: ConnectorSnapshot | None) -> str:
    if snapshot is None:
        return "cataloged_not_connected"
    enabled, connected = snapshot.config.enabled, snapshot.state.connected
    if connected:
        return "connected_enabled" if enabled else "connected_disabled"
    return "cataloged_not_connected" if enabled else "cataloged_disabled"


def catalog_with_overlay(
    catalog: Catalog, snapshots: Sequence[ConnectorSnapshot]
) -> dict[str, Any]:
    """``GET /mcp/catalog`` and ``mcp_list_catalog``: annotated servers plus the overlay."""
    keyed = [(snapshot, _connector_keys(snapshot)) for snapshot in snapshots]
    matched: set[str] = set()
    servers: list[dict[str, Any]] = []
    by_status: dict[str, list[str]] = {status: [] for status in STATUSES}
    for entry in catalog.servers:
        keys = _catalog_keys(entry)
        snapshot = next((s for s, s_keys in keyed if s_keys & keys), None)
        status = _status(snapshot)
        by_status[status].append(entry["name"])
        if snapshot is not None:
            matched.add(snapshot.name)
        servers.append(
            {
                **entry,
                "enabled": snapshot.config.enabled if snapshot else False,
                "connected": snapshot.state.connected if snapshot else False,
                "connection_status": status,
                "matched_server_name": snapshot.name if snapshot else None,
                "last_error": snapshot.state.last_error if snapshot else None,
                "pending_auth_tools": sorted(snapshot.state.pending_auth_by_tool)
                if snapshot
                else [],
                "registered_tool_count": len(snapshot.registered_tools()) if snapshot else 0,
                "execution_available": bool(snapshot and snapshot.usable),
            }
        )
    uncataloged = sorted(s.name for s in snapshots if s.state.connected and s.name not in matched)
    by_status["uncataloged_connected"] = uncataloged
    overlay = {
        "inventory_version": INVENTORY_VERSION,
        "connected_server_names": _names(s for s in snapshots if s.state.connected),
        "enabled_server_names": _names(s for s in snapshots if s.config.enabled),
        "connected_catalog_server_names": sorted(by_status["connected_enabled"]),
        "connected_disabled_server_names": sorted(by_status["connected_disabled"]),
        "cataloged_not_connected_server_names": sorted(by_status["cataloged_not_connected"]),
        "cataloged_disabled_server_names": sorted(by_status["cataloged_disabled"]),
        "uncataloged_connected_servers": uncataloged,
        "status_counts": {status: len(by_status[status]) for status in STATUSES},
    }
    return {**catalog.meta, "count": len(servers), "servers": servers, "overlay": overlay}


def _names(snapshots: Iterable[ConnectorSnapshot]) -> list[str]:
    return sorted(s.name for s in snapshots)


__all__ = ["INVENTORY_VERSION", "Catalog", "catalog_with_overlay", "load_catalog", "match_key"]
