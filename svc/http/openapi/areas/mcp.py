"""MCP connectors, their tools and capability requests."""

from ..records import mcp as m
from ..records.system import OK
from ..registry import op

OPERATIONS = {
    "list_servers": op("Every connector and its state", returns=m.MCP_SERVERS),
    "add_server": op("Add a connector", body="svc.mcp.inputs:ConnectorInput", returns=OK),
    "patch_server": op(
        "Change a connector", body="svc.mcp.inputs:ConnectorPatch", returns=m.MCP_PATCHED
    ),
    "delete_server": op("Remove a connector", returns=m.MCP_REMOVED),
    "connect_server": op("Connect a connector and cache its tools", returns=m.MCP_CONNECTED),
    "disconnect_server": op("Disconnect a connector", returns=m.MCP_REMOVED),
    "refresh_server": op("Refresh a connector's tool cache", returns=m.MCP_CONNECTED),
    "list_tools": op("Every cached MCP tool", returns=m.MCP_TOOLS),
    "catalog": op("The connector catalog", returns=m.MCP_CATALOG, query=("q",)),
    "catalog_toml": op("A catalog entry as a TOML configuration snippet", media="application/toml"),
    "start_auth": op(
        "Start an OAuth authorization; the reply carries the authorization URL", returns=m.MCP_AUTH
    ),
    "auth_status": op("The connector's OAuth state (never a token)", returns=m.MCP_AUTH),
    "delete_auth": op(
        "Forget the connector's OAuth credentials and disconnect", returns=m.MCP_AUTH
    ),
    "auth_callback": op(
        "Hand the authorization's `code` and `state` to the waiting flow",
        body={
            "type": "object",
            "properties": {"code": {"type": "string"}, "state": {"type": "string"}},
            "required": ["code"],
        },
        returns=m.MCP_AUTH,
    ),
    "auth_redirect": op(
        "The authorization server's browser redirect: an HTML page saying the outcome "
        "(public; the flow's `state` is the proof)",
        query=("code", "state"),
        media="text/html",
    ),
    "authenticate": op("Use stored credentials, or start an authorization", returns=m.MCP_AUTH),
    "list_resources": op(
        "Resources of every connected connector (an array)", returns=m.MCP_RESOURCES
    ),
    "read_resource": op(
        "Read a resource through the connector's session",
        body={"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
        returns=m.MCP_RESOURCE_CONTENTS,
    ),
    "request_capability": op(
        "Ask for an MCP capability for an agent",
        body="svc.mcp.capability:CapabilityRequestInput",
        returns=m.MCP_CAPABILITY_REQUEST,
    ),
    "capability_requests": op(
        "Capability requests and their decisions", returns=m.MCP_CAPABILITY_REQUESTS
    ),
}
