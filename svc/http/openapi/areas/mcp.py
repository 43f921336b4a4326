"""MCP connectors, their tools and capability requests."""

from ..registry import OBJECT, op

OPERATIONS = {
    "list_servers": op("Every connector and its state", returns=OBJECT),
    "add_server": op("Add a connector", body="svc.mcp.inputs:ConnectorInput", returns=OBJECT),
    "patch_server": op("Change a connector", body="svc.mcp.inputs:ConnectorPatch", returns=OBJECT),
    "delete_server": op("Remove a connector", returns=OBJECT),
    "connect_server": op("Connect a connector and cache its tools", returns=OBJECT),
    "disconnect_server": op("Disconnect a connector", returns=OBJECT),
    "refresh_server": op("Refresh a connector's tool cache", returns=OBJECT),
    "list_tools": op("Every cached MCP tool"),
    "catalog": op("The connector catalog", query=("q",)),
    "catalog_toml": op(
        "A catalog entry as a TOML configuration snippet", returns={"type": "string"}
    ),
    "start_auth": op(
        "Start an OAuth authorization; the reply carries the authorization URL", returns=OBJECT
    ),
    "auth_status": op("The connector's OAuth state (never a token)", returns=OBJECT),
    "delete_auth": op("Forget the connector's OAuth credentials and disconnect", returns=OBJECT),
    "auth_callback": op(
        "Hand the authorization's `code` and `state` to the waiting flow",
        body={
            "type": "object",
            "properties": {"code": {"type": "string"}, "state": {"type": "string"}},
            "required": ["code"],
        },
        returns=OBJECT,
    ),
    "authenticate": op("Use stored credentials, or start an authorization", returns=OBJECT),
    "list_resources": op("Resources of every connected connector (an array)"),
    "read_resource": op(
        "Read a resource through the connector's session",
        body={"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
        returns=OBJECT,
    ),
    "request_capability": op(
        "Ask for an MCP capability for an agent",
        body="svc.mcp.capability:CapabilityRequestInput",
        returns=OBJECT,
    ),
    "capability_requests": op("Capability requests and their decisions", returns=OBJECT),
}
