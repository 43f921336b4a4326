"""The vocabulary shared by spawn policies, templates and spawn requests.

Roles, spawn sources, edge behaviours and skill-source modes are closed sets;
a value outside one is reported naming the field and the allowed values. A
budget (``BudgetSpec``) is the YAML/JSON form of :class:`supervisors.BudgetLimits`.
"""

from __future__ import annotations

from typing import Any, Literal, NewType, get_args

import attrs

from supervisors import BudgetLimits

from ..convert import converter

Role = Literal["orchestrator", "delegator", "worker", "watcher", "reviewer", "tester", "committer"]
ROLES: tuple[str, ...] = get_args(Role)

SpawnSource = Literal["orchestrator_runtime", "ui_action", "tool_call"]
SPAWN_SOURCES: tuple[str, ...] = get_args(SpawnSource)

InstanceStatus = Literal["queued", "running", "completed", "failed", "cancelled"]
INSTANCE_STATUSES: tuple[str, ...] = get_args(InstanceStatus)
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
"""The statuses an instance never leaves."""

EdgeBehavior = Literal["allow", "deny", "request_only"]
SkillSourceMode = Literal["any", "project_only", "allowlist"]


def _closed_set(literal: Any) -> None:
    """Report a value outside ``literal`` as "must be one of ..." (cattrs' default is cryptic)."""
    allowed = get_args(literal)

    def structure(value: Any, _: Any) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)} (got {value!r})")
        return value

    converter.register_structure_hook_func(lambda tp: tp == literal, structure)


for _literal in (Role, SpawnSource, InstanceStatus, EdgeBehavior, SkillSourceMode):
    _closed_set(_literal)


Count = NewType("Count", int)
"""A whole number of units, at least 0."""
Amount = NewType("Amount", float)
"""A number (USD, a percentage), at least 0."""
Percent = NewType("Percent", int)
"""A whole percentage, 0 to 100."""


def _bounded(kind: Any, base: type, upper: float | None = None) -> None:
    def structure(value: Any, _: Any) -> Any:
        number: Any = converter.structure(value, base)
        if number < 0:
            raise ValueError(f"must be at least 0 (got {number})")
        if upper is not None and number > upper:
            raise ValueError(f"must be at most {upper:g} (got {number})")
        return number

    converter.register_structure_hook_func(lambda tp: tp is kind, structure)


_bounded(Count, int)
_bounded(Amount, float)
_bounded(Percent, int, 100)


def parse_role(value: Any) -> Role | None:
    """``value`` as a role, case-insensitively; None if it is not one."""
    if not isinstance(value, str):
        return None
    lowered = value.strip().lower()
    return lowered if lowered in ROLES else None  # type: ignore[return-value]


@attrs.frozen
class BudgetSpec:
    """A budget as written in policy, template and spawn bodies (every field optional)."""

    max_tokens: Count | None = None
    max_steps: Count | None = None
    max_tool_calls: Count | None = None
    max_duration_ms: Count | None = None
    max_cost_usd: Amount | None = None

    def limits(self) -> BudgetLimits:
        return BudgetLimits(
            max_tokens=self.max_tokens,
            max_steps=self.max_steps,
            max_tool_calls=self.max_tool_calls,
            max_duration_ms=self.max_duration_ms,
            max_cost_usd=self.max_cost_usd,
        )


@attrs.frozen
class SkillRef:
    """A skill a template declares or a role requires: by name (``id``), by file (``path``),
    or both."""

    id: str | None = None
    path: str | None = None

    def to_wire(self) -> dict[str, str]:
        return {k: v for k, v in (("id", self.id), ("path", self.path)) if v is not None}


__all__ = [
    "INSTANCE_STATUSES",
    "ROLES",
    "SPAWN_SOURCES",
    "TERMINAL",
    "Amount",
    "BudgetSpec",
    "Count",
    "EdgeBehavior",
    "InstanceStatus",
    "Percent",
    "Role",
    "SkillRef",
    "SkillSourceMode",
    "SpawnSource",
    "parse_role",
]
