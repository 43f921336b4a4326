"""Permission rules: may this tool run here without asking?

A pure rule engine; the HTTP routes, the pending requests and the waiting for a
reply live elsewhere. Rules pair a ``permission`` (usually the tool name) and a
``pattern`` (what the tool acts on; ``*`` for everything) with an action.
Evaluation: rules scoped to another session are ignored, any matching ``deny``
wins, otherwise the last matching rule decides, and no matching rule means
``ask``. Unknown tools (and every ``mcp.*`` tool) therefore need approval.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Literal, get_args

import attrs

from ..errors import SvcError

Action = Literal["allow", "ask", "deny"]
Reply = Literal["once", "always", "allow", "reject", "deny"]

ACTIONS: tuple[Action, ...] = get_args(Action)
VALID_REPLIES: tuple[Reply, ...] = ("once", "always", "allow", "reject", "deny")

# A standing allow for a shell would approve every future command, so replying
# "always" to one only approves the current call.
SHELL_PERMISSIONS = frozenset({"bash", "shell"})


class PermissionReplyInvalid(SvcError):
    """reply must be one of once|always|reject|allow|deny"""

    code = "APPROVAL_REPLY_INVALID"
    status = 400


@attrs.frozen(kw_only=True)
class PermissionRule:
    id: str
    permission: str
    """A wildcard pattern over permission names: ``*``, ``prefix*`` or exact."""
    pattern: str = "*"
    action: Action
    session_id: str | None = None
    created_at_ms: int = 0
    created_by: str | None = None
    source_request_id: str | None = None
    provenance: str | None = None

    def applies_to(self, session_id: str | None) -> bool:
        return self.session_id is None or self.session_id == session_id

    def matches(self, permission: str, pattern: str = "*") -> bool:
        return wildcard_match(self.permission, permission) and wildcard_match(self.pattern, pattern)

    def to_wire(self) -> dict[str, Any]:
        """The ``rules[]`` entry of ``GET /permission``; optional fields only when set."""
        wire: dict[str, Any] = {
            "id": self.id,
            "permission": self.permission,
            "pattern": self.pattern,
            "action": self.action,
        }
        if self.session_id is not None:
            wire["sessionID"] = self.session_id
        if self.created_at_ms:
            wire["createdAtMs"] = self.created_at_ms
        if self.created_by is not None:
            wire["createdBy"] = self.created_by
        if self.source_request_id is not None:
            wire["sourceRequestID"] = self.source_request_id
        if self.provenance is not None:
            wire["provenance"] = self.provenance
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> PermissionRule:
        """Inverse of :meth:`to_wire` (for stored rules)."""
        action = data.get("action")
        if action not in ACTIONS:
            raise ValueError(
                f"permission rule action must be one of {', '.join(ACTIONS)}, not {action!r}"
            )
        return cls(
            id=str(data["id"]),
            permission=str(data["permission"]),
            pattern=str(data.get("pattern") or "*"),
            action=action,
            session_id=data.get("sessionID"),
            created_at_ms=int(data.get("createdAtMs") or 0),
            created_by=data.get("createdBy"),
            source_request_id=data.get("sourceRequestID"),
            provenance=data.get("provenance"),
        )


def wildcard_match(pattern: str, value: str) -> bool:
    """``*`` matches any run of characters (including none); everything else is literal."""
    if pattern == "*" or pattern == value:
        return True
    if "*" not in pattern:
        return False
    return _compile(pattern).fullmatch(value) is not None


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


def evaluate(
    rules: Iterable[PermissionRule], permission: str, *, session_id: str | None, pattern: str = "*"
) -> Action:
    """The action for ``permission`` (on ``pattern``) in ``session_id``."""
    decided: Action = "ask"
    for rule in rules:
        if not rule.applies_to(session_id) or not rule.matches(permission, pattern):
            continue
        if rule.action == "deny":
            return "deny"
        decided = rule.action
    return decided


def reply_to_rule(
    reply: str,
    permission: str,
    session_id: str | None,
    *,
    pattern: str = "*",
    rule_id: str | None = None,
    now_ms: int = 0,
    created_by: str | None = None,
    source_request_id: str | None = None,
    provenance: str = "permission_reply",
) -> PermissionRule | None:
    """The standing rule a reply to a permission request leaves behind, if any.

    ``always``/``allow`` → allow in this session (never for shell tools),
    ``reject``/``deny`` → deny in this session, ``once`` → nothing.
    """
    if reply not in VALID_REPLIES:
        raise PermissionReplyInvalid()
    if reply == "once":
        return None
    if reply in ("always", "allow"):
        if permission in SHELL_PERMISSIONS:
            return None
        action: Action = "allow"
    else:
        action = "deny"
    return PermissionRule(
        id=rule_id or str(uuid.uuid4()),
        permission=permission,
        pattern=pattern,
        action=action,
        session_id=session_id,
        created_at_ms=now_ms,
        created_by=created_by,
        source_request_id=source_request_id,
        provenance=provenance,
    )


def reply_allows(reply: str) -> bool:
    """Whether the pending call may run after this reply."""
    if reply not in VALID_REPLIES:
        raise PermissionReplyInvalid()
    return reply in ("once", "always", "allow")


_DEFAULT_ALLOW = (
    "ls", "list", "glob", "search", "grep", "codesearch", "read", "todowrite", "todo_write",
    "websearch", "webfetch", "webfetch_html", "memory_search", "memory_list", "mcp_list",
    "mcp_list_catalog",
    # question is interactive by nature; batch re-checks every sub-call.
    "question", "batch",
    "goal_get", "wait_inspect", "orchestration_validate", "orchestration_create_draft",
    "automation_inspect", "orchestration_inspect",
    # Readiness only: no page is opened, nothing leaves the machine.
    "browser_status",
)  # fmt: skip
_DEFAULT_ASK = (
    "write", "edit", "apply_patch", "bash", "memory_store", "memory_delete", "automation_control",
    "orchestration_publish", "goal_start", "goal_cancel", "handoff_emit", "handoff_approve",
    "wait_resolve", "spawn_agent", "mcp_request_capability",
)  # fmt: skip


def _default(permission: str, action: Action) -> PermissionRule:
    return PermissionRule(
        id=f"default:{permission}", permission=permission, action=action, provenance="default"
    )


DEFAULT_RULES: tuple[PermissionRule, ...] = tuple(
    [_default(p, "allow") for p in _DEFAULT_ALLOW] + [_default(p, "ask") for p in _DEFAULT_ASK]
)
"""Installed at startup; everything not listed (``mcp.*`` included) falls to ``ask``."""


__all__ = [
    "ACTIONS",
    "DEFAULT_RULES",
    "SHELL_PERMISSIONS",
    "VALID_REPLIES",
    "Action",
    "PermissionReplyInvalid",
    "PermissionRule",
    "Reply",
    "evaluate",
    "reply_allows",
    "reply_to_rule",
    "wildcard_match",
]
