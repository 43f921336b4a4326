"""``webfetch`` (a page as Markdown) and ``webfetch_html`` (the raw HTML)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ..text import decode_text, looks_binary
from ..types import ToolCapabilities, ToolContext, ToolFailed, ToolResult
from .base import BuiltinTool

# The fetcher, the tools' HTTP client and the Markdown converter are imported on
# first use: start-up registers the tools but never fetches (docs/architecture.md,
# "Start-up budget").
if TYPE_CHECKING:
    from ..fetch import FetchResult

DEFAULT_MAX_BYTES = 500_000
MAX_MAX_BYTES = 5_000_000
DEFAULT_TIMEOUT_MS = 15_000
DEFAULT_MAX_REDIRECTS = 5
MAX_REDIRECTS = 20

_TEXTUAL_TYPES = ("json", "xml", "javascript", "ecmascript", "yaml", "toml", "csv", "markdown")

_FETCH_PROPERTIES: dict[str, Any] = {
    "url": {
        "type": "string",
        "minLength": 1,
        "description": "http:// or https:// URL of a public site to fetch.",
    },
    "max_bytes": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_MAX_BYTES,
        "description": f"Read at most this many bytes of the body (default {DEFAULT_MAX_BYTES}).",
    },
    "timeout_ms": {
        "type": "integer",
        "minimum": 1000,
        "maximum": 120_000,
        "description": f"Give up after this many milliseconds (default {DEFAULT_TIMEOUT_MS}).",
    },
    "max_redirects": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_REDIRECTS,
        "description": f"Follow at most this many redirects (default {DEFAULT_MAX_REDIRECTS}).",
    },
}


def is_html(content_type: str, body: bytes) -> bool:
    if content_type:
        return "html" in content_type.lower()
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))


def is_text(content_type: str, body: bytes) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    if not kind:
        return not looks_binary(body)
    return (
        kind.startswith("text/") or any(word in kind for word in _TEXTUAL_TYPES) or "html" in kind
    )


async def fetch_for(args: dict[str, Any], ctx: ToolContext) -> FetchResult:
    """Fetch ``args['url']`` with the argument limits; refuse error statuses and binary bodies."""
    from ..fetch import fetch_url
    from ..http import tool_http_client

    async with tool_http_client(ctx) as client:
        result = await fetch_url(
            client,
            args["url"],
            max_bytes=int(args.get("max_bytes", DEFAULT_MAX_BYTES)),
            max_redirects=int(args.get("max_redirects", DEFAULT_MAX_REDIRECTS)),
            time_limit=int(args.get("timeout_ms", DEFAULT_TIMEOUT_MS)) / 1000,
            allow_private=ctx.settings is not None and ctx.settings.webfetch_allow_private,
        )
    if result.status >= 400:
        raise ToolFailed(
            f"HTTP {result.status} from {result.final_url}",
            url=result.url,
            http_status=result.status,
        )
    if not is_text(result.content_type, result.body):
        raise ToolFailed(
            f"{result.final_url} returned {result.content_type or 'binary data'}, not text",
            url=result.url,
            content_type=result.content_type,
        )
    return result


def fetch_metadata(result: FetchResult) -> dict[str, Any]:
    return {
        "url": result.url,
        "final_url": result.final_url,
        "status": result.status,
        "content_type": result.content_type,
        "bytes": len(result.body),
        "truncated": result.truncated,
    }


def _truncation_note(result: FetchResult) -> str:
    return (
        f"\n\n[truncated: only the first {len(result.body)} bytes were fetched]"
        if result.truncated
        else ""
    )


class WebFetchTool(BuiltinTool):
    name = "webfetch"
    description = (
        "Fetch a web page over http(s) and return it as Markdown (scripts and styles removed). "
        "`return` chooses `markdown` (default), `html`, or `both`; non-HTML text is returned "
        "as is. "
        "Redirects, size and time are capped by `max_redirects`, `max_bytes` and `timeout_ms`. "
        "Loopback and private network addresses are refused."
    )
    input_schema = {
        "type": "object",
        "properties": {
            **_FETCH_PROPERTIES,
            "return": {
                "type": "string",
                "enum": ["markdown", "html", "both"],
                "description": "What to return for an HTML page (default markdown).",
            },
        },
        "required": ["url"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(network_access=True, effects=("network.fetch",))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        result = await fetch_for(args, ctx)
        text = decode_text(result.body, result.encoding)
        wanted = args.get("return", "markdown")
        metadata = fetch_metadata(result)
        if not is_html(result.content_type, result.body):
            metadata["format"] = "text"
            return ToolResult(text + _truncation_note(result), metadata)
        if wanted == "html":
            output = text
        else:
            from ..markdown import html_to_markdown

            # Converting a large page is CPU work; keep it off the event loop.
            markdown = await trio.to_thread.run_sync(html_to_markdown, text)
            output = markdown if wanted == "markdown" else f"{markdown}\n\n--- HTML ---\n\n{text}"
        metadata["format"] = wanted
        return ToolResult(output + _truncation_note(result), metadata)


class WebFetchHtmlTool(BuiltinTool):
    name = "webfetch_html"
    description = (
        "Fetch a web page over http(s) and return its raw HTML (or the text of a non-HTML "
        "response). "
        "Redirects, size and time are capped by `max_redirects`, `max_bytes` and `timeout_ms`."
    )
    input_schema = {
        "type": "object",
        "properties": dict(_FETCH_PROPERTIES),
        "required": ["url"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(network_access=True, effects=("network.fetch",))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        result = await fetch_for(args, ctx)
        metadata = fetch_metadata(result)
        metadata["format"] = "html"
        return ToolResult(
            decode_text(result.body, result.encoding) + _truncation_note(result), metadata
        )


__all__ = ["WebFetchHtmlTool", "WebFetchTool"]
