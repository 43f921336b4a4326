"""Immutable budget records: limits, usage, and what an exhaustion looked like."""

from __future__ import annotations

from typing import Literal

import attrs

LimitName = Literal["max_tokens", "max_steps", "max_tool_calls", "max_duration_ms", "max_cost_usd"]


@attrs.frozen
class BudgetLimits:
    """Upper bounds of a budget; None means unlimited in that dimension."""

    max_tokens: int | None = None
    max_steps: int | None = None
    max_tool_calls: int | None = None
    max_duration_ms: int | None = None
    max_cost_usd: float | None = None

    def merged(self, other: BudgetLimits | None) -> BudgetLimits:
        """Field by field: ``other``'s value where it is set, else ours."""
        if other is None:
            return self
        return BudgetLimits(
            **{
                field.name: (
                    getattr(other, field.name)
                    if getattr(other, field.name) is not None
                    else getattr(self, field.name)
                )
                for field in attrs.fields(BudgetLimits)
            }
        )


@attrs.frozen
class BudgetUsage:
    """What a budget scope has consumed (its own charges plus its descendants')."""

    tokens: int = 0
    steps: int = 0
    tool_calls: int = 0
    cost_usd: float = 0.0
    duration_ms: int = 0


@attrs.frozen
class Exhaustion:
    """A scope ran out: which scope, which limit (first in check order), usage at that moment."""

    scope: str
    limit: LimitName
    usage: BudgetUsage
    limits: BudgetLimits
