"""MCP connectors: connector actors, Streamable HTTP discovery and calls, auth challenges,
argument repair, and capability discovery.

``engine.mcp`` is the :class:`McpService`; each connector is a
:class:`ConnectorActor` (``mcp/<name>``) under the engine's connectors
supervisor; remote tools appear in the registry as ``mcp.<server>.<tool>``.
"""

from __future__ import annotations

from ..lazy import LazyExports

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
            "Caller",
            "ConnectorActor",
            "ConnectOutcome",
        ],
        ".errors": [
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
        ".service": [
            "CapabilityRequestNotFound",
            "ConnectorInput",
            "ConnectorPatch",
            "McpService",
        ],
        ".tools": [
            "McpTool",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
