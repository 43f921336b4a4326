"""Tool-name sanitizing and the way back (pure)."""

from __future__ import annotations

from svc.providers.tool_names import ToolNameMap, sanitize_tool_name


def test_sanitize_replaces_invalid_characters_and_bounds_length() -> None:
    assert sanitize_tool_name("mcp.github.search issues") == "mcp_github_search_issues"
    assert sanitize_tool_name("ok-name_1") == "ok-name_1"
    assert sanitize_tool_name("") == "tool"
    assert len(sanitize_tool_name("x" * 100)) == 64


def test_collisions_get_numbered_suffixes_and_map_back() -> None:
    names = ToolNameMap(["a.b", "a_b", "a b", "c"])
    assert [names.wire(n) for n in ("a.b", "a_b", "a b", "c")] == ["a_b", "a_b_2", "a_b_3", "c"]
    assert names.original("a_b_2") == "a_b"
    assert names.original("a_b_3") == "a b"
    assert names.original("unknown") == "unknown"


def test_suffix_fits_in_64_characters() -> None:
    long = "t" * 70
    names = ToolNameMap([long, long + "!"])
    second = names.wire(long + "!")
    assert len(second) == 64 and second.endswith("_2")
    assert names.original(second) == long + "!"
