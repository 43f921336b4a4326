"""Pause, resume, cancel, and the goal-policy limits that pause or end a goal.

Each function takes the goal as the actor holds it, commits the change with its
durable event, and returns the new goal with the response body. Cancelling (and any
limit that ends the goal) settles what the goal leaves behind in the same transaction:
its waits are cancelled and its unconsumed handoffs dead-lettered; the active run is
then cancelled in the automations domain.
"""

from __future__ import annotations

import logging
from typing import Any

import attrs

from .errors import GoalTerminal
from .events import CANCELLED, LIMIT_REACHED, PAUSED, RESUMED, RUN_LAUNCH_FAILED, NewEvent
from .goal import Goal
from .repository import Commit
from .runtime import GoalRuntime
from .settlement import cancelled_waits, dead_lettered
from .tenancy import Caller, owner_id_of
from .transitions import Limit, limit_status

log = logging.getLogger("svc.goals")


def _terminal_error(goal: Goal, what: str) -> GoalTerminal:
    return GoalTerminal(f"terminal goals cannot be {what}", goal_status=goal.status)


async def pause(
    rt: GoalRuntime, goal: Goal, caller: Caller, reason: str
) -> tuple[Goal, dict[str, Any]]:
    if goal.terminal:
        raise _terminal_error(goal, "paused")
    caller.require_goal_owner(_started_by(goal))
    if goal.status == "paused":
        return goal, {"goal": goal.to_wire(), "outcome": "already_paused"}
    paused = rt.stamp(goal, status="paused", status_reason=reason)
    await rt.commit(
        Commit(
            goal=paused,
            events=(
                NewEvent(
                    event_id=f"goal:{goal.goal_id}:{PAUSED}:{paused.updated_at_ms}",
                    event_type=PAUSED,
                    actor=caller.principal.ref(),
                    payload={
                        "goal_id": goal.goal_id,
                        "reason": reason,
                        "previous_status": goal.status,
                    },
                ),
            ),
        )
    )
    rt.bus(paused, "orchestration.goal.paused", {"reason": reason})
    return paused, {"goal": paused.to_wire(), "outcome": "paused"}


async def resume(
    rt: GoalRuntime, goal: Goal, caller: Caller, reason: str
) -> tuple[Goal, dict[str, Any]]:
    if goal.terminal:
        raise _terminal_error(goal, "resumed")
    caller.require_goal_owner(_started_by(goal))
    if goal.status != "paused":
        return goal, {"goal": goal.to_wire(), "outcome": "not_paused"}
    resumed = rt.stamp(
        goal, status="active" if goal.active_run_id else "waiting", status_reason=reason
    )
    await rt.commit(
        Commit(
            goal=resumed,
            events=(
                NewEvent(
                    event_id=f"goal:{goal.goal_id}:{RESUMED}:{resumed.updated_at_ms}",
                    event_type=RESUMED,
                    actor=caller.principal.ref(),
                    payload={"goal_id": goal.goal_id, "reason": reason},
                ),
            ),
        )
    )
    rt.bus(resumed, "orchestration.goal.resumed", {"reason": reason})
    return resumed, {"goal": resumed.to_wire(), "outcome": "resumed"}


async def cancel(
    rt: GoalRuntime, goal: Goal, caller: Caller, reason: str
) -> tuple[Goal, dict[str, Any]]:
    if goal.terminal:
        return goal, {
            "goal": goal.to_wire(),
            "outcome": "AlreadyTerminal",
            "cancelled_run_id": None,
            "cancelled_wait_ids": [],
            "dead_lettered_handoff_ids": [],
        }
    caller.require_goal_owner(_started_by(goal))
    ended, settled = await _end(
        rt,
        goal,
        "cancelled",
        reason,
        caller,
        event_type=CANCELLED,
        event_id=f"goal:{goal.goal_id}:cancelled",
    )
    rt.bus(
        ended,
        "orchestration.goal.cancelled",
        {"runID": settled["cancelled_run_id"], "reason": reason},
    )
    return ended, {"goal": ended.to_wire(), "outcome": "Applied", **settled}


async def apply_limit(
    rt: GoalRuntime, goal: Goal, limit: Limit, caller: Caller | None = None
) -> Goal:
    """Pause the goal for review, or end it, as its ``on_limit`` policy says."""
    status = (
        limit_status(goal.policy, limit)
        if limit != "wait_timeout"
        else ("paused" if goal.policy.on_limit == "pause_for_review" else "failed")
    )
    event_id = f"goal:{goal.goal_id}:limit:{limit}:{goal.updated_at_ms}"
    payload = {
        "goal_id": goal.goal_id,
        "limit": limit,
        "status": status,
        "on_limit": goal.policy.on_limit,
        "hop_count": goal.hop_count,
        "total_tokens": goal.total_tokens,
        "total_cost_usd": goal.total_cost_usd,
    }
    actor = caller.principal.ref() if caller else {"kind": "system", "id": "goal-policy"}
    if limit == "deadline":
        goal = attrs.evolve(goal, deadline_passed=True)
    if status == "paused":
        paused = rt.stamp(goal, status="paused", status_reason=limit)
        await rt.commit(
            Commit(
                goal=paused,
                events=(
                    NewEvent(
                        event_id=event_id, event_type=LIMIT_REACHED, actor=actor, payload=payload
                    ),
                ),
            )
        )
        rt.bus(paused, "orchestration.goal.paused", {"reason": limit})
        return paused
    ended, _ = await _end(
        rt,
        goal,
        status,
        limit,
        caller,
        event_type=LIMIT_REACHED,
        event_id=event_id,
        payload=payload,
    )
    rt.bus(ended, "orchestration.goal.terminal", {"status": status, "reason": limit})
    return ended


async def _end(
    rt: GoalRuntime,
    goal: Goal,
    status: str,
    reason: str,
    caller: Caller | None,
    *,
    event_type: str,
    event_id: str,
    payload: dict[str, Any] | None = None,
) -> tuple[Goal, dict[str, Any]]:
    """End the goal: settle waits and handoffs in the commit, then cancel the active run."""
    now = rt.now()
    run_id = goal.active_run_id
    run = await rt.workflows.run(run_id) if run_id else None
    run_to_cancel = run_id if run_id is not None and (run is None or not run.terminal) else None
    handoffs = dead_lettered(await rt.repo.handoffs(goal.goal_id), now, reason)
    waits = cancelled_waits(await rt.repo.waits(goal.goal_id), now, reason)
    ended = rt.stamp(
        goal, status=status, status_reason=reason, finished_at_ms=now, active_run_id=None
    )
    settled = {
        "cancelled_run_id": run_to_cancel,
        "cancelled_wait_ids": [w.wait_id for w in waits],
        "dead_lettered_handoff_ids": [h.handoff_id for h in handoffs],
    }
    body = payload or {"goal_id": goal.goal_id, "reason": reason, "status": status}
    await rt.commit(
        Commit(
            goal=ended,
            handoffs=tuple(handoffs),
            waits=tuple(waits),
            events=(
                NewEvent(
                    event_id=event_id,
                    event_type=event_type,
                    causation_id=run_id,
                    actor=caller.principal.ref()
                    if caller
                    else {"kind": "system", "id": "goal-policy"},
                    payload={**body, **settled},
                ),
            ),
        )
    )
    if run_to_cancel is not None and run is not None:
        try:
            await rt.workflows.cancel(run_to_cancel, f"goal {goal.goal_id} {status}: {reason}")
        except Exception:
            # The goal is already settled in the store; a run that cannot be cancelled
            # now finishes on its own and can no longer move the goal.
            log.exception("cancelling run %s of goal %s failed", run_to_cancel, goal.goal_id)
    return ended, settled


def _started_by(goal: Goal) -> str | None:
    return owner_id_of(goal.started_by)


async def launch_failed(rt: GoalRuntime, goal: Goal, run_id: str, error: str) -> Goal:
    """The active run could not be created: pause the goal for review (resuming retries the
    launch)."""
    paused = rt.stamp(goal, status="paused", status_reason="run_launch_failed")
    await rt.commit(
        Commit(
            goal=paused,
            events=(
                NewEvent(
                    event_id=f"{run_id}:launch_failed:{paused.updated_at_ms}",
                    event_type=RUN_LAUNCH_FAILED,
                    run_id=run_id,
                    actor={"kind": "system", "id": "goal-runtime"},
                    payload={"goal_id": goal.goal_id, "run_id": run_id, "error": error},
                ),
            ),
        )
    )
    rt.bus(paused, "orchestration.goal.paused", {"reason": "run_launch_failed", "runID": run_id})
    return paused


__all__ = ["apply_limit", "cancel", "launch_failed", "pause", "resume"]
