"""Records of MCP connectors: their state, tools, OAuth and capability requests."""

from __future__ import annotations

from ..registry import Record
from .common import BOOL, INT, NULL_INT, NULL_OBJ, NULL_STR, OBJ, STR, array_of, map_of, obj

MCP_TOOL = Record(
    "McpTool",
    obj(
        {
            "tool_name": STR,
            "namespaced_name": STR,
            "description": STR,
            "input_schema": OBJ,
            "fetched_at_ms": INT,
            "schema_hash": STR,
        },
        {"server_name": STR, "retry_safe": BOOL},
    ),
)
MCP_TOOLS = Record("McpTools", array_of(MCP_TOOL))
MCP_SERVER = Record(
    "McpServer",
    obj(
        {
            "name": STR,
            "transport": STR,
            "enabled": BOOL,
            "connected": BOOL,
            "last_error": NULL_STR,
            "last_auth_challenge": NULL_OBJ,
            "mcp_session_id": NULL_STR,
            "headers": OBJ,
            "allowed_tools": {"type": ["array", "null"], "items": STR},
            "tool_cache": array_of(MCP_TOOL),
            "tools_fetched_at_ms": NULL_INT,
            "pending_auth_by_tool": OBJ,
            "tool_prefix": STR,
            "tool_count": INT,
            "registered_tool_count": INT,
            "server_info": NULL_OBJ,
            "protocol_version": NULL_STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        }
    ),
)
MCP_SERVERS = Record("McpServers", map_of(MCP_SERVER))
MCP_CONNECTED = Record(
    "McpConnected",
    obj(
        {"ok": BOOL, "count": INT},
        {
            "discoveredCount": INT,
            "pendingAuth": BOOL,
            "lastAuthChallenge": {},
            "authorizationUrl": NULL_STR,
            "changed": BOOL,
        },
    ),
)
MCP_PATCHED = Record("McpPatched", obj({"ok": BOOL}, {"connect": MCP_CONNECTED.schema}))
MCP_REMOVED = Record("McpRemoved", obj({"ok": BOOL, "removedToolCount": INT}))
MCP_AUTH = Record(
    "McpAuth",
    obj(
        {"ok": BOOL, "name": STR, "server": STR, "state": STR},
        {
            "authorizationUrl": NULL_STR,
            "hasTokens": BOOL,
            "registered": BOOL,
            "expiresAtMs": NULL_INT,
            "refreshable": BOOL,
            "removed": {},
            "connected": BOOL,
        },
    ),
)
MCP_CAPABILITY_REQUEST = Record(
    "McpCapabilityRequest", obj({"ok": BOOL, "approval": OBJ, "requested_by": {}})
)
MCP_CAPABILITY_REQUESTS = Record(
    "McpCapabilityRequests", obj({"requests": array_of(OBJ), "count": INT})
)

MCP_CATALOG = Record(
    "McpCatalog",
    obj(
        {
            "count": INT,
            "servers": array_of(obj({"enabled": BOOL, "connected": BOOL})),
            "overlay": obj({"inventory_version": {}, "status_counts": OBJ}),
        }
    ),
)
MCP_RESOURCES = Record("McpResources", array_of(obj({"server": STR})))
MCP_RESOURCE_CONTENTS = Record("McpResourceContents", obj({"server": STR, "uri": STR}))

RECORDS = (
    MCP_TOOL,
    MCP_TOOLS,
    MCP_SERVER,
    MCP_SERVERS,
    MCP_CONNECTED,
    MCP_PATCHED,
    MCP_REMOVED,
    MCP_AUTH,
    MCP_CAPABILITY_REQUEST,
    MCP_CAPABILITY_REQUESTS,
    MCP_CATALOG,
    MCP_RESOURCES,
    MCP_RESOURCE_CONTENTS,
)
