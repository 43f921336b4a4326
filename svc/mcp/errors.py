"""The MCP domain's errors, each with a stable code (codes are wire contract)."""

from __future__ import annotations

from ..errors import Conflict, Forbidden, NotFound, SvcError
from ..tools import ToolFailed


class McpNotFound(NotFound):
    """No MCP server is configured under this name."""

    code = "MCP_NOT_FOUND"


class McpNameConflict(Conflict):
    """Another MCP server already uses this name (or one that gives the same tool prefix)."""

    code = "MCP_NAME_CONFLICT"


class McpStdioTransportDenied(SvcError):
    """stdio MCP transports cannot be registered through the HTTP API"""

    code = "MCP_STDIO_TRANSPORT_DENIED"
    status = 400


class McpDisabled(Conflict):
    """MCP server is disabled"""

    code = "MCP_SERVER_DISABLED"


class McpNotConnected(Conflict):
    """MCP server is not connected"""

    code = "MCP_NOT_CONNECTED"
    retryable = True


class McpConnectFailed(SvcError):
    """Connecting to the MCP server failed."""

    code = "MCP_CONNECT_FAILED"
    status = 502
    retryable = True


class McpRefreshFailed(McpConnectFailed):
    """Refreshing the MCP server's tools failed."""

    code = "MCP_REFRESH_FAILED"


class McpToolNotFound(NotFound):
    """The MCP server has no such tool."""

    code = "MCP_TOOL_NOT_FOUND"


class McpToolNotAllowed(Forbidden):
    """The tool is not in the MCP server's allowed_tools."""

    code = "MCP_TOOL_NOT_ALLOWED"


class McpToolError(ToolFailed):
    """The MCP tool reported an error (isError)."""

    code = "MCP_TOOL_ERROR"


class McpCallFailed(SvcError):
    """The MCP server answered tools/call with an error."""

    code = "MCP_CALL_FAILED"
    status = 502


class McpConnectionLost(SvcError):
    """The connection to the MCP server was lost during the call."""

    code = "MCP_CONNECTION_LOST"
    status = 502
    retryable = True


class McpCallTimeout(SvcError):
    """The MCP server did not answer in time."""

    code = "MCP_CALL_TIMEOUT"
    status = 504
    retryable = True


class CapabilityRequestNotFound(NotFound):
    """No capability request has this id."""

    code = "MCP_CAPABILITY_REQUEST_NOT_FOUND"


class McpRequestDenied(Forbidden):
    """The MCP request is not allowed."""

    code = "MCP_REQUEST_DENIED"


class McpCatalogUnavailable(SvcError):
    """MCP catalog is unavailable"""

    code = "MCP_CATALOG_UNAVAILABLE"
    status = 503


__all__ = [
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
]
