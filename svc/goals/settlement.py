"""Settling what a goal leaves behind when it stops: open handoffs and waits."""

from __future__ import annotations

import attrs

from .goal import OPEN_HANDOFF_STATUSES, Handoff, Wait
from .waits import cancelled


def dead_lettered(handoffs: list[Handoff], now_ms: int, reason: str) -> list[Handoff]:
    """Every unconsumed handoff (pending, approved or claimed), dead-lettered."""
    return [
        attrs.evolve(
            h,
            status="dead_lettered",
            updated_at_ms=now_ms,
            metadata={**(h.metadata or {}), "goal_cancellation_reason": reason},
        )
        for h in handoffs
        if h.status in OPEN_HANDOFF_STATUSES
    ]


def cancelled_waits(waits: list[Wait], now_ms: int, reason: str) -> list[Wait]:
    return [cancelled(w, now_ms, reason) for w in waits if w.open]


__all__ = ["cancelled_waits", "dead_lettered"]
