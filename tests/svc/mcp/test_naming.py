"""Tool IDs and the connector allowlist."""

from __future__ import annotations

import pytest

from svc.mcp.naming import assign_ids, namespaced, server_prefix, slug, tool_allowed


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Clickup_CreateTask", "clickup_createtask"),
        ("reddit-gmail", "reddit_gmail"),
        ("My Server!!", "my_server"),
        ("  a.b..c  ", "a_b_c"),
        ("Ünïcode tool", "n_code_tool"),
        ("---", "tool"),
    ],
)
def test_slug_keeps_ascii_alphanumerics_and_folds_the_rest(raw: str, expected: str) -> None:
    assert slug(raw) == expected


def test_tool_ids_are_namespaced_by_server_and_tool_slug() -> None:
    assert namespaced("My Server", "Search-Issues") == "mcp.my_server.search_issues"
    assert server_prefix("!!!") == "mcp.server."


def test_tools_that_slug_alike_get_distinct_ids() -> None:
    ids = assign_ids("gw", ["Get-Item", "get_item", "GET ITEM", "other"])
    assert ids == {
        "Get-Item": "mcp.gw.get_item",
        "get_item": "mcp.gw.get_item_2",
        "GET ITEM": "mcp.gw.get_item_3",
        "other": "mcp.gw.other",
    }


def test_allowlist_absent_allows_all_and_empty_allows_none() -> None:
    assert tool_allowed(None, server="gw", tool="x", tool_id="mcp.gw.x")
    assert not tool_allowed([], server="gw", tool="x", tool_id="mcp.gw.x")


@pytest.mark.parametrize("entry", ["Gmail_Send", "mcp.gw.gmail_send", "mcp.gw.*", "*", "Gmail_*"])
def test_allowlist_entries_match_raw_names_ids_and_prefix_patterns(entry: str) -> None:
    assert tool_allowed([entry], server="gw", tool="Gmail_Send", tool_id="mcp.gw.gmail_send")


def test_allowlist_does_not_match_other_tools() -> None:
    assert not tool_allowed(
        ["Gmail_Send", "mcp.other.*"], server="gw", tool="Drive_List", tool_id="mcp.gw.drive_list"
    )
