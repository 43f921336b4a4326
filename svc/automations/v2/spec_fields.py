"""The field checks every part of an automation v2 definition uses, and its fixed vocabularies.

Every error is a 400 ``AUTOMATION_V2_CREATE_FAILED`` naming the field (and the
node, for flow nodes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...errors import ValidationFailed
from ...tools import normalize_patterns

CODE = "AUTOMATION_V2_CREATE_FAILED"
STATUSES = ("active", "paused", "draft", "retired")
STAGE_KINDS = ("orchestrator", "workstream", "review", "test", "approval")
GATE_DECISIONS = ("approve", "rework", "cancel")
MAX_PARALLEL = 16


def fail(message: str, field: str, **extra: Any) -> ValidationFailed:
    return ValidationFailed(message, field=field, code=CODE, **extra)


def strings(value: Any, field: str, *, node_id: str | None = None) -> list[str]:
    if value is None:
        return []
    extra = {"node_id": node_id} if node_id else {}
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise fail(f"`{field}` must be an array of strings", field, **extra)
    return [v.strip() for v in value if v.strip()]


def positive_int(value: Any, field: str, node_id: str | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        extra = {"node_id": node_id} if node_id else {}
        raise fail(f"`{field}` must be a positive integer", field, **extra)
    return value


def opt_str(body: Mapping[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise fail(f"`{key}` must be a non-empty string", key)
    return value.strip()


def json_copy(value: Any, field: str) -> Any:
    """A deep copy of JSON data (refusing what JSON cannot hold)."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        raise fail(f"`{field}` must be plain JSON data", field) from None


def tool_policy(value: Any, field: str, *, default_allow: list[str] | None) -> dict[str, list[str]]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise fail(f"`{field}` must be an object with allowlist and denylist", field)
    allow = normalize_patterns(strings(value.get("allowlist"), f"{field}.allowlist"))
    deny = normalize_patterns(strings(value.get("denylist"), f"{field}.denylist"))
    if not allow and default_allow is not None:
        allow = list(default_allow)
    return {"allowlist": allow, "denylist": deny}


def mcp_policy(value: Any, field: str) -> dict[str, list[str]]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise fail(f"`{field}` must be an object with allowed_servers", field)
    policy = {
        "allowed_servers": sorted(
            normalize_patterns(strings(value.get("allowed_servers"), f"{field}.allowed_servers"))
        )
    }
    if value.get("allowed_tools") is not None:
        policy["allowed_tools"] = sorted(
            normalize_patterns(strings(value["allowed_tools"], f"{field}.allowed_tools"))
        )
    return policy


__all__ = [
    "CODE",
    "GATE_DECISIONS",
    "MAX_PARALLEL",
    "STAGE_KINDS",
    "STATUSES",
    "fail",
    "json_copy",
    "mcp_policy",
    "opt_str",
    "positive_int",
    "strings",
    "tool_policy",
]
