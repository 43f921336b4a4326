"""MCP connectors: connector actors, Streamable HTTP discovery and calls, auth challenges,
argument repair, and capability discovery.

``engine.mcp`` is the :class:`McpService`; each connector is a
:class:`ConnectorActor` (``mcp/<name>``) under the engine's connectors
supervisor; remote tools appear in the registry as ``mcp.<server>.<tool>``.
"""

from .arguments import normalize_key, repair_arguments
from .auth import AuthChallenge, AuthLedger, PendingAuth, find_challenge
from .capability import CapabilityRequestInput, capability_key
from .catalog import INVENTORY_VERSION, Catalog, catalog_with_overlay, load_catalog, match_key
from .client import McpLink, run_link
from .component import McpComponent
from .connector import Caller, ConnectorActor, ConnectOutcome
from .errors import (
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
from .naming import namespaced, server_prefix, server_slug, slug, tool_allowed
from .records import CachedTool, ConnectorConfig, ConnectorSnapshot, ConnectorState
from .results import render_content, to_tool_result
from .service import CapabilityRequestNotFound, ConnectorInput, ConnectorPatch, McpService
from .tools import McpTool

__all__ = [
    "INVENTORY_VERSION",
    "AuthChallenge",
    "AuthLedger",
    "CachedTool",
    "Caller",
    "CapabilityRequestInput",
    "CapabilityRequestNotFound",
    "Catalog",
    "ConnectOutcome",
    "ConnectorActor",
    "ConnectorConfig",
    "ConnectorInput",
    "ConnectorPatch",
    "ConnectorSnapshot",
    "ConnectorState",
    "McpCallFailed",
    "McpCallTimeout",
    "McpCatalogUnavailable",
    "McpComponent",
    "McpConnectFailed",
    "McpConnectionLost",
    "McpDisabled",
    "McpLink",
    "McpNameConflict",
    "McpNotConnected",
    "McpNotFound",
    "McpRefreshFailed",
    "McpRequestDenied",
    "McpService",
    "McpStdioTransportDenied",
    "McpTool",
    "McpToolError",
    "McpToolNotAllowed",
    "McpToolNotFound",
    "PendingAuth",
    "capability_key",
    "catalog_with_overlay",
    "find_challenge",
    "load_catalog",
    "match_key",
    "namespaced",
    "normalize_key",
    "render_content",
    "repair_arguments",
    "run_link",
    "server_prefix",
    "server_slug",
    "slug",
    "to_tool_result",
    "tool_allowed",
]
