"""Deciding a pending handoff: a human approves or rejects an approval-gated transition.

The goal stays waiting until the transition is retried (an approved handoff is then
consumed). Runs inside the goal's actor, one commit with its durable event.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from .errors import HandoffNotFound, InvalidGoalRequest
from .events import HANDOFF_DECIDED, NewEvent
from .goal import Goal
from .repository import Commit
from .runtime import GoalRuntime
from .tenancy import APPROVE, Caller


async def decide_handoff(
    rt: GoalRuntime, goal: Goal, caller: Caller, handoff_id: str, decision: Any, reason: str | None
) -> tuple[Goal, dict[str, Any]]:
    """Approve or reject a pending handoff; the goal stays waiting until the transition is
    retried."""
    caller.require_authority(APPROVE)
    if decision not in ("approve", "reject"):
        raise InvalidGoalRequest("`decision` must be approve or reject", field="decision")
    handoff = next(
        (h for h in await rt.repo.handoffs(goal.goal_id) if h.handoff_id == handoff_id), None
    )
    if handoff is None:
        raise HandoffNotFound(f"handoff {handoff_id!r} not found on goal {goal.goal_id!r}")
    approved = decision == "approve"
    wanted: Literal["approved", "rejected"] = "approved" if approved else "rejected"
    if handoff.status == wanted:
        return goal, {"handoff": handoff.to_wire()}
    if handoff.status != "pending_approval":
        raise InvalidGoalRequest(
            f"only pending handoffs can be approved or rejected (this one is {handoff.status})",
            handoff_status=handoff.status,
        )
    now = rt.now()
    decided = attrs.evolve(
        handoff,
        status=wanted,
        updated_at_ms=now,
        metadata={
            **(handoff.metadata or {}),
            "decision_actor": caller.principal.ref(),
            "approved": approved,
            "decision_reason": reason,
            "decided_at_ms": now,
        },
    )
    touched = rt.stamp(goal)
    await rt.commit(
        Commit(
            goal=touched,
            handoffs=(decided,),
            events=(
                NewEvent(
                    event_id=f"{handoff_id}:decision:{wanted}",
                    event_type=HANDOFF_DECIDED,
                    actor=caller.principal.ref(),
                    payload={
                        "goal_id": goal.goal_id,
                        "handoff_id": handoff_id,
                        "approved": approved,
                        "reason": reason,
                    },
                ),
            ),
        )
    )
    rt.bus(
        touched,
        "orchestration.goal.handoff_decided",
        {
            "handoffID": handoff_id,
            "approved": approved,
            "reason": reason,
            "effective_actor": caller.principal.ref(),
            "run_as": None,
        },
    )
    return touched, {"handoff": decided.to_wire()}


__all__ = ["decide_handoff"]
