"""Capabilities: discovery, bindings, resolution."""

from ..records import extras as x
from ..registry import ANY_BODY, op

OPERATIONS = {
    "get_capability_bindings": op("Read the capability bindings", returns=x.CAPABILITY_BINDINGS),
    "put_capability_bindings": op(
        "Replace the capability bindings",
        body=ANY_BODY,
        body_required=True,
        returns=x.CAPABILITY_BINDINGS,
    ),
    "capability_discovery": op(
        "List the capabilities registered tools provide", returns=x.CAPABILITY_DISCOVERY
    ),
    "resolve_capabilities": op(
        "Resolve capability ids to tools",
        body=ANY_BODY,
        body_required=True,
        returns=x.CAPABILITY_RESOLUTION,
    ),
}
