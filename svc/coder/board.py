"""A repohost project board reached through a connected MCP server.

A server qualifies when its tools include ``get_project``,
``list_project_items`` and ``update_project_item_field`` (by name, with any
``repohost.`` / ``repohost_`` style prefix). Results are JSON text:

* ``get_project {owner, project_number}``: ``{id, title, fields: [{id, name, options?}]}``;
* ``list_project_items {owner, project_number}``: ``{items: [{id, title,
  status: {option_id, name}, issue?: {number, title, url}}]}``;
* ``update_project_item_field {owner, project_number, item_id, field_id, option_id}``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import SvcError
from .errors import BoardFailed, McpUnavailable, SchemaInvalid

if TYPE_CHECKING:
    from ..mcp import McpService

TOOLS = ("get_project", "list_project_items", "update_project_item_field")


def _canonical(tool_name: str) -> str:
    return tool_name.lower().replace(".", "_").replace("-", "_")


@attrs.frozen
class BoardItem:
    id: str
    title: str
    status_name: str | None
    status_option_id: str | None
    issue: dict[str, Any] | None


def tools_of(mcp: McpService, server: str) -> dict[str, str] | None:
    """The server's remote names for the three project tools, or None when it lacks one."""
    snapshot = mcp.snapshot(server)
    if snapshot is None or not snapshot.usable:
        return None
    names: dict[str, str] = {}
    for tool in snapshot.registered_tools():
        canonical = _canonical(tool.tool_name)
        for wanted in TOOLS:
            if canonical == wanted or canonical.endswith("_" + wanted):
                names.setdefault(wanted, tool.tool_name)
    return names if len(names) == len(TOOLS) else None


def find_server(mcp: McpService | None, preferred: str | None) -> str:
    if mcp is None:
        raise McpUnavailable()
    candidates = [preferred] if preferred else [s.name for s in mcp.snapshots()]
    for name in candidates:
        if name and tools_of(mcp, name) is not None:
            return name
    raise McpUnavailable(
        f"MCP server `{preferred}` is not connected or lacks the project tools"
        if preferred
        else None
    )


async def _call(mcp: McpService, server: str, tool: str, args: dict[str, Any]) -> Any:
    names = tools_of(mcp, server)
    if names is None and mcp.snapshot(server) is not None:
        # Configured but not (yet) connected, as right after an engine restart while
        # connectors reconnect in the background: connect now rather than fail.
        await mcp.connect(server, source="coder")
        names = tools_of(mcp, server)
    if names is None:
        raise McpUnavailable(f"MCP server `{server}` is not connected or lacks the project tools")
    try:
        result = await mcp.call(server, names[tool], args)
    except SvcError as exc:
        raise BoardFailed(f"`{tool}` failed: {exc.message}") from None
    try:
        return json.loads(result.output)
    except ValueError:
        raise SchemaInvalid(f"`{tool}` did not answer JSON") from None


async def get_project(mcp: McpService, server: str, owner: str, number: int) -> dict[str, Any]:
    schema = await _call(mcp, server, "get_project", {"owner": owner, "project_number": number})
    if not isinstance(schema, dict):
        raise SchemaInvalid("`get_project` did not answer an object")
    return schema


async def list_items(mcp: McpService, server: str, owner: str, number: int) -> list[BoardItem]:
    found = await _call(
        mcp, server, "list_project_items", {"owner": owner, "project_number": number}
    )
    raw = found.get("items") if isinstance(found, dict) else found
    if not isinstance(raw, list):
        raise SchemaInvalid("`list_project_items` did not answer a list of items")
    items = []
    for entry in raw:
        if not isinstance(entry, dict) or "id" not in entry:
            continue
        status = entry.get("status") if isinstance(entry.get("status"), dict) else {}
        assert isinstance(status, dict)
        issue = entry.get("issue") if isinstance(entry.get("issue"), dict) else None
        items.append(
            BoardItem(
                id=str(entry["id"]),
                title=str(entry.get("title") or ""),
                status_name=status.get("name"),
                status_option_id=status.get("option_id"),
                issue=issue,
            )
        )
    return items


async def set_status(
    mcp: McpService,
    server: str,
    owner: str,
    number: int,
    *,
    item_id: str,
    field_id: str,
    option_id: str,
) -> None:
    await _call(
        mcp,
        server,
        "update_project_item_field",
        {
            "owner": owner,
            "project_number": number,
            "item_id": item_id,
            "field_id": field_id,
            "option_id": option_id,
        },
    )


__all__ = ["TOOLS", "BoardItem", "find_server", "get_project", "list_items", "set_status"]
