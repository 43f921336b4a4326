"""A ``tools/call`` result as a tool output.

* The text of the content items, joined with newlines; images, audio and binary
  resources are summarised (``[image image/png, 5120 bytes]``) rather than
  pasted as base64.
* ``isError`` makes the call fail with that text (:class:`McpToolError`).
* ``structuredContent`` is kept in the metadata (and is the output when the
  server sent no content at all).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ..tools import ToolResult
from .errors import McpToolError

_BINARY_KEYS = ("data", "blob")


def render_content(result: Mapping[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, list) and content:
        return "\n".join(_render_item(item) for item in content)
    if "structuredContent" in result and result["structuredContent"] is not None:
        return _json(result["structuredContent"])
    if content not in (None, []):
        return _json(content)
    return ""


def _render_item(item: Any) -> str:
    if not isinstance(item, Mapping):
        return _json(item)
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        return str(item["text"])
    if kind in ("image", "audio"):
        mime = item.get("mimeType") or "unknown type"
        return f"[{kind} {mime}, {_decoded_size(item.get('data'))} bytes]"
    if kind == "resource" and isinstance(item.get("resource"), Mapping):
        resource = item["resource"]
        if isinstance(resource.get("text"), str):
            return str(resource["text"])
        return (
            f"[resource {resource.get('uri', '')} ({resource.get('mimeType') or 'unknown type'}), "
            f"{_decoded_size(resource.get('blob'))} bytes]"
        )
    if kind == "resource_link":
        return f"[resource link {item.get('name') or ''} <{item.get('uri', '')}>]"
    return _json(item)


def to_tool_result(
    server: str,
    tool: str,
    result: Mapping[str, Any],
    *,
    tool_id: str,
    scrub: Callable[[str], str] = str,
) -> ToolResult:
    """The engine's result for a successful (non-``isError``) call; raises McpToolError otherwise.

    ``scrub`` cleans the error text of an ``isError`` result (the connector removes
    its own header values, which a server may echo back in an error).
    """
    output = render_content(result)
    metadata: dict[str, Any] = {
        "server": server,
        "tool": tool,
        "result": elide_binary(result) if _has_binary(result) else dict(result),
        "mcpAuth": None,
    }
    if result.get("structuredContent") is not None:
        metadata["structuredContent"] = result["structuredContent"]
    if result.get("isError"):
        structured = result.get("structuredContent")
        if structured is not None:
            structured = json.loads(scrub(json.dumps(structured)))
        raise McpToolError(
            scrub(output) or f"MCP tool `{tool_id}` reported an error",
            tool=tool_id,
            server=server,
            structuredContent=structured,
        )
    return ToolResult(output, metadata)


def _has_binary(result: Mapping[str, Any]) -> bool:
    """Whether a content item may carry base64 (text-only results skip the deep copy)."""
    content = result.get("content")
    if not isinstance(content, list):
        return True
    return any(not (isinstance(item, Mapping) and item.get("type") == "text") for item in content)


def elide_binary(value: Any) -> Any:
    """A copy with base64 payloads replaced by their size (metadata ends up in events)."""
    if isinstance(value, Mapping):
        return {
            k: (
                f"<{_decoded_size(v)} bytes>"
                if k in _BINARY_KEYS and isinstance(v, str)
                else elide_binary(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [elide_binary(v) for v in value]
    return value


def _decoded_size(data: Any) -> int:
    if not isinstance(data, str):
        return 0
    return len(data) * 3 // 4 - data.count("=", max(len(data) - 2, 0))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


__all__ = ["elide_binary", "render_content", "to_tool_result"]
