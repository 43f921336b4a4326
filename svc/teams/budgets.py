"""Budget resolution for a new instance, and the mission-level spawn check.

An instance's limits are its role's default (``role_defaults``), overlaid
field by field by the template's ``default_budget`` and then the spawn's
``budget_override``. A child of another instance is then capped, per
dimension, by a share (``child_budget_percent_of_parent_remaining``, default
100%) of what the parent has left; a dimension the parent does not limit is
left as it is. At run time the instance's :class:`~supervisors.BudgetScope`
is a child of its mission's, so the mission's totals cap it too.
"""

from __future__ import annotations

import math

import attrs

from supervisors import BudgetLimits, BudgetUsage

from .policy import SpawnPolicy
from .schema import Role

MISSION_LIMITS = ("max_tokens", "max_steps", "max_tool_calls", "max_cost_usd")


def resolve_budget(
    policy: SpawnPolicy,
    role: Role,
    template_default: BudgetLimits | None,
    override: BudgetLimits | None,
    *,
    parent_remaining: BudgetLimits | None = None,
) -> BudgetLimits:
    """The limits of a new instance of ``role`` (see the module docstring)."""
    base = policy.role_defaults[role].limits() if role in policy.role_defaults else BudgetLimits()
    limits = base.merged(template_default).merged(override)
    if parent_remaining is None:
        return limits
    percent = policy.child_budget_percent_of_parent_remaining
    share = 100 if percent is None else percent
    capped = {}
    for field in attrs.fields(BudgetLimits):
        own = getattr(limits, field.name)
        left = getattr(parent_remaining, field.name)
        if left is None:
            capped[field.name] = own
            continue
        cap = left * share / 100
        cap = math.floor(cap) if isinstance(left, int) else cap
        capped[field.name] = cap if own is None else min(own, cap)
    return BudgetLimits(**capped)


def remaining_from(limits: BudgetLimits, usage: BudgetUsage) -> BudgetLimits:
    """What is left of ``limits`` after ``usage`` (for an instance that no longer runs)."""

    def left(limit: float | None, used: float) -> float | None:
        return None if limit is None else max(limit - used, 0)

    return BudgetLimits(
        max_tokens=left(limits.max_tokens, usage.tokens),  # type: ignore[arg-type]
        max_steps=left(limits.max_steps, usage.steps),  # type: ignore[arg-type]
        max_tool_calls=left(limits.max_tool_calls, usage.tool_calls),  # type: ignore[arg-type]
        max_duration_ms=left(limits.max_duration_ms, usage.duration_ms),  # type: ignore[arg-type]
        max_cost_usd=left(limits.max_cost_usd, usage.cost_usd),
    )


def mission_spent(limits: BudgetLimits, usage: BudgetUsage) -> str | None:
    """Why a new instance cannot start in a mission with this usage, or None.

    A mission that has used all of a limited dimension has nothing to give a
    new instance, so spawning into it is refused (``>=``, unlike exhaustion
    while running, which is usage *above* the limit).
    """
    used = {
        "max_tokens": usage.tokens,
        "max_steps": usage.steps,
        "max_tool_calls": usage.tool_calls,
        "max_cost_usd": usage.cost_usd,
    }
    for name in MISSION_LIMITS:
        limit = getattr(limits, name)
        if limit is not None and used[name] >= limit:
            return f"mission {name} exhausted ({_fmt(used[name])}/{_fmt(limit)})"
    return None


def _fmt(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


__all__ = ["MISSION_LIMITS", "mission_spent", "remaining_from", "resolve_budget"]
