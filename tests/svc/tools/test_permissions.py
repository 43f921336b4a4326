"""The permission rule engine: evaluation order, session scope, defaults, replies."""

from __future__ import annotations

import pytest

from svc.tools import (
    DEFAULT_RULES,
    VALID_REPLIES,
    PermissionReplyInvalid,
    PermissionRule,
    evaluate,
    reply_allows,
    reply_to_rule,
    wildcard_match,
)


def rule(
    permission: str, action: str, *, pattern: str = "*", session: str | None = None, n: int = 0
) -> PermissionRule:
    return PermissionRule(
        id=f"r{n}", permission=permission, pattern=pattern, action=action, session_id=session
    )  # type: ignore[arg-type]


def test_no_matching_rule_asks() -> None:
    assert evaluate([], "read", session_id=None) == "ask"
    assert evaluate([rule("write", "allow")], "read", session_id="s1") == "ask"


def test_last_matching_rule_wins() -> None:
    rules = [rule("read", "allow", n=1), rule("read", "ask", n=2)]
    assert evaluate(rules, "read", session_id=None) == "ask"
    assert evaluate(list(reversed(rules)), "read", session_id=None) == "allow"


def test_any_matching_deny_wins_wherever_it_is() -> None:
    rules = [rule("*", "deny", n=1), rule("read", "allow", n=2), rule("read", "allow", n=3)]
    assert evaluate(rules, "read", session_id=None) == "deny"
    assert evaluate([rule("read", "allow"), rule("re*", "deny")], "read", session_id=None) == "deny"


def test_wildcards_on_permission_and_pattern() -> None:
    rules = [rule("mcp.github.*", "allow")]
    assert evaluate(rules, "mcp.github.create_issue", session_id=None) == "allow"
    assert evaluate(rules, "mcp.gitlab.x", session_id=None) == "ask"
    scoped = [rule("write", "allow", pattern="src/*")]
    assert evaluate(scoped, "write", session_id=None, pattern="src/a.py") == "allow"
    assert evaluate(scoped, "write", session_id=None, pattern="docs/a.md") == "ask"


def test_wildcard_match() -> None:
    assert wildcard_match("*", "anything")
    assert wildcard_match("read", "read")
    assert not wildcard_match("read", "reader")
    assert wildcard_match("web*", "webfetch_html")
    assert wildcard_match("*_html", "webfetch_html")
    assert wildcard_match("a*c*e", "abcde")
    assert not wildcard_match("a.c", "abc")  # dots are literal


def test_rules_of_another_session_are_ignored() -> None:
    rules = [rule("bash", "deny", session="other"), rule("bash", "allow", session="mine")]
    assert evaluate(rules, "bash", session_id="mine") == "allow"
    assert evaluate(rules, "bash", session_id="third") == "ask"
    assert evaluate(rules, "bash", session_id=None) == "ask"
    assert evaluate(rules, "bash", session_id="other") == "deny"


def test_global_rules_apply_to_every_session() -> None:
    assert evaluate([rule("read", "allow")], "read", session_id="any") == "allow"


@pytest.mark.parametrize(
    "tool", ["read", "glob", "grep", "websearch", "webfetch", "webfetch_html", "todo_write",
             "todowrite", "question", "batch", "memory_search", "mcp_list",
             "orchestration_inspect", "codesearch", "browser_status"],
)  # fmt: skip
def test_default_allow(tool: str) -> None:
    assert evaluate(DEFAULT_RULES, tool, session_id="s") == "allow"


@pytest.mark.parametrize(
    "tool", ["write", "edit", "apply_patch", "bash", "memory_store", "memory_delete", "spawn_agent",
             "mcp_request_capability", "goal_start", "wait_resolve", "browser_open",
             "browser_navigate", "browser_click", "browser_type", "browser_screenshot"],
)  # fmt: skip
def test_default_ask(tool: str) -> None:
    assert evaluate(DEFAULT_RULES, tool, session_id="s") == "ask"


@pytest.mark.parametrize("tool", ["mcp.github.create_issue", "unknown_tool", "task", "skill"])
def test_tools_without_a_default_rule_ask(tool: str) -> None:
    assert not any(r.matches(tool) for r in DEFAULT_RULES)
    assert evaluate(DEFAULT_RULES, tool, session_id="s") == "ask"


def test_default_rules_are_global_and_unique() -> None:
    assert all(r.session_id is None for r in DEFAULT_RULES)
    assert len({r.permission for r in DEFAULT_RULES}) == len(DEFAULT_RULES)


def test_a_session_rule_overrides_a_default() -> None:
    rules = [*DEFAULT_RULES, rule("write", "allow", session="s1")]
    assert evaluate(rules, "write", session_id="s1") == "allow"
    assert evaluate(rules, "write", session_id="s2") == "ask"
    rules = [*DEFAULT_RULES, rule("read", "deny", session="s1")]
    assert evaluate(rules, "read", session_id="s1") == "deny"


@pytest.mark.parametrize("reply", ["always", "allow"])
def test_always_and_allow_leave_a_session_allow_rule(reply: str) -> None:
    made = reply_to_rule(
        reply,
        "write",
        "s1",
        rule_id="rid",
        now_ms=1234,
        created_by="owner",
        source_request_id="req",
    )
    assert made == PermissionRule(
        id="rid", permission="write", action="allow", session_id="s1", created_at_ms=1234,
        created_by="owner", source_request_id="req", provenance="permission_reply",
    )  # fmt: skip
    assert evaluate([*DEFAULT_RULES, made], "write", session_id="s1") == "allow"


@pytest.mark.parametrize("reply", ["reject", "deny"])
def test_reject_and_deny_leave_a_session_deny_rule(reply: str) -> None:
    made = reply_to_rule(reply, "read", "s1")
    assert made is not None and made.action == "deny" and made.session_id == "s1"
    assert len(made.id) == 36  # a generated UUID
    assert evaluate([*DEFAULT_RULES, made], "read", session_id="s1") == "deny"
    assert evaluate([*DEFAULT_RULES, made], "read", session_id="s2") == "allow"


def test_once_leaves_no_rule() -> None:
    assert reply_to_rule("once", "write", "s1") is None


def test_shell_tools_never_get_a_standing_allow() -> None:
    assert reply_to_rule("always", "bash", "s1") is None
    denied = reply_to_rule("deny", "bash", "s1")
    assert denied is not None and denied.action == "deny"


def test_invalid_reply() -> None:
    with pytest.raises(PermissionReplyInvalid) as info:
        reply_to_rule("maybe", "write", "s1")
    assert info.value.code == "APPROVAL_REPLY_INVALID"
    assert info.value.status == 400
    assert info.value.message == "reply must be one of once|always|reject|allow|deny"


def test_reply_allows() -> None:
    assert [reply_allows(r) for r in VALID_REPLIES] == [True, True, True, False, False]
    with pytest.raises(PermissionReplyInvalid):
        reply_allows("nope")


def test_to_wire_has_the_reference_shape() -> None:
    minimal = PermissionRule(id="r1", permission="read", action="allow")
    assert minimal.to_wire() == {
        "id": "r1",
        "permission": "read",
        "pattern": "*",
        "action": "allow",
    }
    full = reply_to_rule(
        "always", "write", "s1", rule_id="r2", now_ms=99, created_by="u", source_request_id="q"
    )
    assert full is not None
    assert full.to_wire() == {
        "id": "r2", "permission": "write", "pattern": "*", "action": "allow", "sessionID": "s1",
        "createdAtMs": 99, "createdBy": "u", "sourceRequestID": "q",
        "provenance": "permission_reply",
    }  # fmt: skip
    assert PermissionRule.from_wire(full.to_wire()) == full
    assert PermissionRule.from_wire(minimal.to_wire()) == minimal


def test_from_wire_rejects_unknown_actions() -> None:
    with pytest.raises(ValueError, match="action"):
        PermissionRule.from_wire({"id": "x", "permission": "read", "action": "maybe"})


def test_rules_are_frozen() -> None:
    import attrs

    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        DEFAULT_RULES[0].action = "deny"  # type: ignore[misc]
