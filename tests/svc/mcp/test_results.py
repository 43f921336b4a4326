"""tools/call results as tool outputs."""

from __future__ import annotations

import pytest

from svc.mcp import McpToolError
from svc.mcp.results import render_content, to_tool_result


def test_text_items_are_joined_and_binary_items_summarised() -> None:
    result = {
        "content": [
            {"type": "text", "text": "line one"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "file text"}},
            {
                "type": "resource",
                "resource": {"uri": "file:///b.bin", "blob": "AAAA", "mimeType": "application/x"},
            },
            {"type": "resource_link", "uri": "https://x.test/doc", "name": "doc"},
        ]
    }
    assert render_content(result).split("\n") == [
        "line one",
        "[image image/png, 5 bytes]",
        "file text",
        "[resource file:///b.bin (application/x), 3 bytes]",
        "[resource link doc <https://x.test/doc>]",
    ]


def test_structured_content_is_the_output_only_without_content() -> None:
    assert (
        render_content({"content": [], "structuredContent": {"b": 1, "a": 2}}) == '{"a": 2, "b": 1}'
    )
    assert render_content({"content": []}) == ""


def test_metadata_keeps_structured_content_and_drops_base64() -> None:
    raw = {
        "content": [{"type": "image", "data": "QUJD", "mimeType": "image/gif"}],
        "structuredContent": {"n": 1},
    }
    result = to_tool_result("gw", "pic", raw, tool_id="mcp.gw.pic")
    assert result.metadata["structuredContent"] == {"n": 1}
    assert result.metadata["result"]["content"][0]["data"] == "<3 bytes>"
    assert result.metadata["mcpAuth"] is None


def test_is_error_fails_with_the_text() -> None:
    with pytest.raises(McpToolError) as raised:
        to_tool_result(
            "gw",
            "t",
            {"content": [{"type": "text", "text": "quota exceeded"}], "isError": True},
            tool_id="mcp.gw.t",
        )
    assert raised.value.message == "quota exceeded" and raised.value.code == "MCP_TOOL_ERROR"
