"""MCP connectors: connector actors, Streamable HTTP discovery and calls, auth challenges,
argument repair, and capability discovery.

``engine.mcp`` is the :class:`McpService`; each connector is a
:class:`ConnectorActor` (``mcp/<name>``) under the engine's connectors
supervisor; remote tools appear in the registry as ``mcp.<server>.<tool>``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

# Type checkers see the real names (re-exported, hence the noqa); at run time each is
# imported on first use.
if TYPE_CHECKING:
    from .arguments import normalize_key, repair_arguments  # noqa: F401
    from .auth import AuthChallenge, AuthLedger, PendingAuth, find_challenge  # noqa: F401
    from .capability import CapabilityRequestInput, capability_key  # noqa: F401
    from .catalog import INVENTORY_VERSION, Catalog, catalog_with_overlay, load_catalog, match_key  # noqa: F401
    from .client import McpLink, run_link  # noqa: F401
    from .component import McpComponent  # noqa: F401
    from .connector import ConnectorActor  # noqa: F401
    from .connector_messages import ConnectOutcome, ToolCaller  # noqa: F401
    from .errors import (  # noqa: F401
        CapabilityRequestNotFound,
        McpCallFailed,
        McpCallTimeout,
        McpCatalogUnavailable,
        McpConnectFailed,
        McpConnectionLost,
        McpDisabled,
        McpNameConflict,
        McpNotConnected,
        McpNotFound,
        McpRefreshFailed,
        McpRequestDenied,
        McpStdioTransportDenied,
        McpToolError,
        McpToolNotAllowed,
        McpToolNotFound,
    )
    from .inputs import ConnectorInput, ConnectorPatch  # noqa: F401
    from .naming import namespaced, server_prefix, server_slug, slug, tool_allowed  # noqa: F401
    from .records import CachedTool, ConnectorConfig, ConnectorSnapshot, ConnectorState  # noqa: F401
    from .results import render_content, to_tool_result  # noqa: F401
    from .service import McpService  # noqa: F401
    from .tools import McpTool  # noqa: F401

_exports = LazyExports(
    __name__,
    {
        ".arguments": [
            "normalize_key",
            "repair_arguments",
        ],
        ".auth": [
            "AuthChallenge",
            "AuthLedger",
            "PendingAuth",
            "find_challenge",
        ],
        ".capability": [
            "CapabilityRequestInput",
            "capability_key",
        ],
        ".catalog": [
            "INVENTORY_VERSION",
            "Catalog",
            "catalog_with_overlay",
            "load_catalog",
            "match_key",
        ],
        ".client": [
            "McpLink",
            "run_link",
        ],
        ".component": [
            "McpComponent",
        ],
        ".connector": [
            "ConnectorActor",
        ],
        ".connector_messages": [
            "ConnectOutcome",
            "ToolCaller",
        ],
        ".errors": [
            "CapabilityRequestNotFound",
            "McpCallFailed",
            "McpCallTimeout",
            "McpCatalogUnavailable",
            "McpConnectFailed",
            "McpConnectionLost",
            "McpDisabled",
            "McpNameConflict",
            "McpNotConnected",
            "McpNotFound",
            "McpRefreshFailed",
            "McpRequestDenied",
            "McpStdioTransportDenied",
            "McpToolError",
            "McpToolNotAllowed",
            "McpToolNotFound",
        ],
        ".naming": [
            "namespaced",
            "server_prefix",
            "server_slug",
            "slug",
            "tool_allowed",
        ],
        ".records": [
            "CachedTool",
            "ConnectorConfig",
            "ConnectorSnapshot",
            "ConnectorState",
        ],
        ".results": [
            "render_content",
            "to_tool_result",
        ],
        ".inputs": [
            "ConnectorInput",
            "ConnectorPatch",
        ],
        ".service": [
            "McpService",
        ],
        ".tools": [
            "McpTool",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
