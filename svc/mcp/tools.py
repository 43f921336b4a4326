"""Tools: remote MCP tools in the registry, and the agent-facing MCP tools.

* :class:`McpTool` is one remote tool as ``mcp.<server>.<tool>``: its execute is
  an ask to the connector actor (``McpService.call``).
* ``mcp_list``: the configured and connected servers and their tools (not a
  catalog search); ``mcp_list_catalog``: the catalog with its overlay;
  ``mcp_request_capability``: files a pending approval for a server the agent
  lacks (connects nothing); ``mcp_debug``: one raw ``tools/call`` to an exact URL.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..convert import structure
from ..errors import SvcError, ValidationFailed
from ..tools import Tool, ToolCapabilities, ToolContext, ToolResult
from ..tools.builtin import BuiltinTool

if TYPE_CHECKING:
    from .records import CachedTool
    from .service import McpService

# Registration needs only names, descriptions and schemas; what a tool runs is imported
# on its first call (docs/architecture.md, "Start-up budget").

_NETWORK = ToolCapabilities(network_access=True, effects=("mcp",))


class McpTool(Tool):
    """One remote tool of one connector."""

    capabilities = _NETWORK

    def __init__(self, service: McpService, server: str, cached: CachedTool) -> None:
        self._service = service
        self.server = server
        self.remote_name = cached.tool_name
        self.name = cached.tool_id
        self.description = cached.description
        self.input_schema = cached.input_schema

    def prepare_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        # Drifted keys are fixed before the schema check, so `listId` reaches
        # the server as `list_id` instead of failing as a missing `list_id`.
        if not isinstance(args, Mapping):
            return args  # the schema check reports it
        from .arguments import repair_arguments

        return repair_arguments(self.input_schema, args)

    def schema(self) -> dict[str, Any]:
        return {**super().schema(), "server": self.server, "remote_name": self.remote_name}

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return await self._service.call(self.server, self.remote_name, args, ctx=ctx)


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)


class McpListTool(BuiltinTool):
    name = "mcp_list"
    description = (
        "List the MCP servers configured in this engine: which are enabled and connected, their "
        "tools (as mcp.<server>.<tool>) and pending authorizations. This is not a catalog search; "
        "use mcp_list_catalog to discover servers that are not configured."
    )
    input_schema = {"type": "object", "properties": {}, "additionalProperties": False}

    def __init__(self, service: McpService) -> None:
        self._service = service

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        inventory = self._service.inventory()
        return ToolResult(_pretty(compact_inventory(inventory)), inventory)


def compact_inventory(inventory: Mapping[str, Any]) -> dict[str, Any]:
    """What the model reads: names and counts, without schemas."""
    servers = [
        {
            "name": s["name"],
            "enabled": s["enabled"],
            "connected": s["connected"],
            "last_error": s["last_error"],
            "pending_auth_tools": s["pending_auth_tools"],
            "registered_tools": s["registered_tools"],
            "remote_tool_count": s["remote_tool_count"],
            "registered_tool_count": s["registered_tool_count"],
        }
        for s in inventory["servers"]
    ]
    connected = inventory["connected_server_names"]
    return {
        "inventory_version": inventory["inventory_version"],
        "summary": (
            f"{len(servers)} MCP server(s) configured, {len(connected)} connected, "
            f"{inventory['registered_tool_count']} tool(s) callable"
        ),
        "connected_server_names": connected,
        "enabled_server_names": inventory["enabled_server_names"],
        "registered_tool_count": inventory["registered_tool_count"],
        "servers": servers,
        "omitted_fields": ["input_schema", "description", "transport"],
    }


class McpListCatalogTool(BuiltinTool):
    name = "mcp_list_catalog"
    description = (
        "List the catalog of known MCP servers with an overlay telling which are connected, "
        "configured but disconnected or disabled, and which connected servers are not in the "
        "catalog. Use it to find a server for a capability you lack, then ask for it with "
        "mcp_request_capability."
    )
    input_schema = {"type": "object", "properties": {}, "additionalProperties": False}

    def __init__(self, service: McpService) -> None:
        self._service = service

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        catalog = self._service.catalog()
        return ToolResult(_pretty(catalog), catalog)


class McpRequestCapabilityTool(BuiltinTool):
    name = "mcp_request_capability"
    description = (
        "Ask a human to grant you an MCP server (and optionally specific tools). This only files a "
        "request with status pending; it connects nothing and runs no remote tool."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "agent_id": {"type": "string", "description": "Your agent id."},
            "mcp_name": {"type": "string", "description": "The MCP server you need."},
            "rationale": {"type": "string", "description": "Why you need it."},
            "catalog_slug": {
                "type": "string",
                "description": "The catalog slug, if it is in the catalog.",
            },
            "requested_tools": {"type": "array", "items": {"type": "string"}},
            "context": {"type": "object"},
            "expires_at_ms": {
                "type": "integer",
                "description": "When the request lapses (epoch ms).",
            },
        },
        "required": ["agent_id", "mcp_name", "rationale"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(effects=("approval",))

    def __init__(self, service: McpService) -> None:
        self._service = service

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from .capability import CapabilityRequestInput

        request = structure(CapabilityRequestInput, args, what="args")
        source = f"tool:{ctx.session_id}" if ctx.session_id else "tool:mcp_request_capability"
        result = await self._service.request_capability(
            request, source=source, caller_agent_id=ctx.agent_id
        )
        return ToolResult(_pretty(result), result)


class McpDebugTool(BuiltinTool):
    name = "mcp_debug"
    description = (
        "Send one raw tools/call to an MCP endpoint and show the HTTP answer. Only use it when you "
        "know the exact server URL and the exact tool name; it does not initialize a session."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "The exact MCP endpoint URL."},
            "tool": {"type": "string", "description": "The exact remote tool name."},
            "args": {"type": "object"},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
            "timeout_ms": {"type": "integer", "description": "1000 to 120000, default 15000."},
            "max_bytes": {"type": "integer", "description": "Body bytes kept, default 200000."},
        },
        "required": ["url", "tool"],
        "additionalProperties": False,
    }
    capabilities = _NETWORK

    def __init__(self, service: McpService) -> None:
        self._service = service

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from .debug import clamp_max_bytes, clamp_timeout, debug_policy, raw_tool_call
        from .endpoint import check_headers, check_transport

        tool = args["tool"].strip()
        if not args["url"].strip() or not tool:
            raise ValidationFailed(
                "url and tool are required",
                field="args.tool" if args["url"].strip() else "args.url",
            )
        try:
            url = check_transport(args["url"])
        except SvcError as exc:
            raise ValidationFailed(
                exc.message.replace("`transport`", "`url`"), field="args.url"
            ) from None
        headers = check_headers(args.get("headers") or {})
        timeout_ms = clamp_timeout(args.get("timeout_ms"))
        max_bytes = clamp_max_bytes(args.get("max_bytes"))
        answer = await raw_tool_call(
            self._service.http,
            url,
            tool,
            args.get("args") or {},
            headers=headers,
            timeout_ms=timeout_ms,
            max_bytes=max_bytes,
            policy=debug_policy(url, [s.config.transport for s in self._service.snapshots()]),
        )
        return ToolResult(
            _pretty(answer),
            {
                "url": url,
                "tool": tool,
                "timeout_ms": timeout_ms,
                "max_bytes": max_bytes,
                "status": answer["status"],
            },
        )


def agent_tools(service: McpService) -> list[Tool]:
    return [
        McpListTool(service),
        McpListCatalogTool(service),
        McpRequestCapabilityTool(service),
        McpDebugTool(service),
    ]


__all__ = [
    "McpDebugTool",
    "McpListCatalogTool",
    "McpListTool",
    "McpRequestCapabilityTool",
    "McpTool",
    "agent_tools",
    "compact_inventory",
]
