"""Capabilities: discovery, bindings, resolution."""

from ..registry import ANY_BODY, op

OPERATIONS = {
    "get_capability_bindings": op("Read the capability bindings"),
    "put_capability_bindings": op(
        "Replace the capability bindings", body=ANY_BODY, body_required=True
    ),
    "capability_discovery": op("List the capabilities registered tools provide"),
    "resolve_capabilities": op(
        "Resolve capability ids to tools", body=ANY_BODY, body_required=True
    ),
}
