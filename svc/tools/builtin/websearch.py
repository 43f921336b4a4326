"""``websearch``: search the web with the configured backend."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ..types import ToolCapabilities, ToolContext, ToolFailed, ToolResult
from .base import BuiltinTool

# The search backends and the tools' HTTP client are imported on first use:
# start-up registers the tool but never searches (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from ..search import SearchHit

DEFAULT_LIMIT = 5
MAX_LIMIT = 20


def format_hits(hits: list[SearchHit], query: str) -> str:
    if not hits:
        return f"no results for `{query}`"
    lines: list[str] = []
    for number, hit in enumerate(hits, start=1):
        lines.append(f"{number}. {hit.title} — {hit.url}")
        if hit.snippet:
            lines.append(f"  {hit.snippet}")
    return "\n".join(lines)


class WebSearchTool(BuiltinTool):
    name = "websearch"
    description = (
        f"Search the web. Returns up to `limit` results (default {DEFAULT_LIMIT}, max {MAX_LIMIT}) "
        "as a numbered list of title, URL and snippet. Use webfetch to read a result."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to search for."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": f"How many results (default {DEFAULT_LIMIT}).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(network_access=True, effects=("network.search",))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from ..http import tool_http_client
        from ..search import SearchConfig, select_backend

        config = SearchConfig.from_context(ctx)
        backend = select_backend(config)
        query = args["query"].strip()
        limit = int(args.get("limit", DEFAULT_LIMIT))
        hits: list[SearchHit] | None = None
        with trio.move_on_after(config.timeout_ms / 1000):
            async with tool_http_client(ctx) as client:
                hits = await backend.search(client, query, limit)
        if hits is None:
            raise ToolFailed(
                f"{backend.name} search timed out after {config.timeout_ms} ms",
                backend=backend.name,
                retryable=True,
            )
        metadata = {
            "backend": backend.name,
            "count": len(hits),
            "results": [h.to_dict() for h in hits],
        }
        return ToolResult(format_hits(hits, query), metadata)


__all__ = ["WebSearchTool"]
