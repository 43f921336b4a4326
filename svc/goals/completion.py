"""Completing a goal's active run: wait for a transition, or settle the goal at a terminal node.

Like a transition it runs inside the goal's actor and commits its records and its durable
event in one transaction.
"""

from __future__ import annotations

from typing import Any

import attrs

from .charging import charged
from .events import AWAITING_TRANSITION, TERMINAL, NewEvent
from .goal import Goal, Handoff
from .repository import Commit
from .runtime import GoalRuntime, PinnedVersion
from .settlement import cancelled_waits, dead_lettered
from .tenancy import Caller, owner_id_of
from .transitions import (
    TERMINAL_OUTCOME_STATUS,
    check_completion_target,
    check_final_artifact,
    check_goal_open,
    check_source,
)


@attrs.frozen
class CompletionRequest:
    transition_key: str | None = None
    final_artifact: dict[str, Any] | None = None


async def complete(
    rt: GoalRuntime, goal: Goal, pinned: PinnedVersion, caller: Caller, request: CompletionRequest
) -> tuple[Goal, dict[str, Any]]:
    """Settle the active run: wait for a transition, or finish at a terminal node."""
    check_goal_open(goal)
    caller.require_goal_owner(owner_id_of(goal.started_by))
    source_run = await rt.workflows.run(goal.active_run_id) if goal.active_run_id else None
    source = check_source(goal, pinned.spec, source_run)
    assert source_run is not None
    if not request.transition_key:
        waiting = rt.stamp(
            goal,
            status="waiting",
            status_reason="awaiting_transition",
            **charged(goal, source_run),
        )
        await rt.commit(
            Commit(
                goal=waiting,
                events=(
                    NewEvent(
                        event_id=f"goal:{goal.goal_id}:{source_run.run_id}:awaiting_transition",
                        event_type=AWAITING_TRANSITION,
                        actor=caller.principal.ref(),
                        causation_id=source_run.run_id,
                        payload={
                            "goal_id": goal.goal_id,
                            "run_id": source_run.run_id,
                            "node_id": source.node_id,
                        },
                    ),
                ),
            )
        )
        return waiting, {"outcome": "awaiting_transition", "goal": waiting.to_wire()}
    edge, target = check_completion_target(pinned.spec, source, request.transition_key)
    check_final_artifact(request.final_artifact, edge, target)
    status = TERMINAL_OUTCOME_STATUS[target.outcome or "complete"]
    now = rt.now()
    changes: dict[str, Any] = {
        "status": status,
        "status_reason": f"terminal node {target.node_id}",
        "current_node_id": target.node_id,
        "final_artifact": request.final_artifact,
        **charged(goal, source_run),
    }
    handoffs: list[Handoff] = []
    waits: list[Any] = []
    if status != "paused":
        changes.update(finished_at_ms=now, active_run_id=None)
        reason = f"goal settled {status}"
        handoffs = dead_lettered(await rt.repo.handoffs(goal.goal_id), now, reason)
        waits = cancelled_waits(await rt.repo.waits(goal.goal_id), now, reason)
    settled = rt.stamp(goal, **changes)
    await rt.commit(
        Commit(
            goal=settled,
            handoffs=tuple(handoffs),
            waits=tuple(waits),
            events=(
                NewEvent(
                    event_id=f"goal:{goal.goal_id}:{source_run.run_id}:terminal",
                    event_type=TERMINAL,
                    actor=caller.principal.ref(),
                    causation_id=source_run.run_id,
                    payload={
                        "goal_id": goal.goal_id,
                        "status": status,
                        "terminal_node_id": target.node_id,
                        "edge_id": edge.edge_id,
                        "transition_key": request.transition_key,
                        "final_artifact": request.final_artifact,
                    },
                ),
            ),
        )
    )
    rt.bus(settled, "orchestration.goal.terminal", {"status": status})
    return settled, {"outcome": "terminal", "goal": settled.to_wire()}


__all__ = ["CompletionRequest", "complete"]
