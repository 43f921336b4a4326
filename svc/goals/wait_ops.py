"""Applying wait resolutions, timers and timeouts to a goal (inside its actor)."""

from __future__ import annotations

from typing import Any

from .control import apply_limit
from .errors import WaitNotFound
from .events import (
    WAIT_ESCALATED,
    WAIT_REMINDER,
    WAIT_RESOLVED,
    WAIT_TIMED_OUT,
    WAIT_TIMER_FIRED,
    NewEvent,
)
from .goal import Goal, Wait
from .repository import Commit
from .runtime import GoalRuntime
from .tenancy import RESOLVE_WAIT, Caller
from .waits import apply_due, resolve

_DUE_EVENTS = {
    "timer_fired": WAIT_TIMER_FIRED,
    "timed_out": WAIT_TIMED_OUT,
    "escalated": WAIT_ESCALATED,
    "reminder": WAIT_REMINDER,
}


async def find_wait(rt: GoalRuntime, goal: Goal, wait_id: str) -> Wait:
    """A wait of a run linked to ``goal`` (404 ``wait_not_found`` otherwise)."""
    linked = {link.run_id for link in await rt.repo.links(goal.goal_id)}
    for wait in await rt.repo.waits(goal.goal_id):
        if wait.wait_id == wait_id and wait.run_id in linked:
            return wait
    raise WaitNotFound(f"wait {wait_id!r} not found on goal {goal.goal_id!r}")


async def resolve_wait(
    rt: GoalRuntime, goal: Goal, caller: Caller, wait_id: str, key: str, payload: Any
) -> tuple[Goal, dict[str, Any]]:
    """Deliver an external condition; the same key again returns the same woken wait."""
    caller.require_authority(RESOLVE_WAIT)
    wait = await find_wait(rt, goal, wait_id)
    woken, changed = resolve(wait, key, payload, rt.now(), caller.principal.ref())
    if not changed:
        return goal, {"goal_id": goal.goal_id, "wait": woken.to_wire()}
    touched = rt.stamp(goal)
    await rt.commit(
        Commit(
            goal=touched,
            waits=(woken,),
            events=(
                NewEvent(
                    event_id=f"{wait_id}:resolved",
                    event_type=WAIT_RESOLVED,
                    run_id=wait.run_id,
                    actor=caller.principal.ref(),
                    causation_id=goal.goal_id,
                    payload={
                        "goal_id": goal.goal_id,
                        "wait_id": wait_id,
                        "resolution": payload,
                        "idempotency_key": woken.wake_idempotency_key,
                    },
                ),
            ),
        )
    )
    rt.bus(
        touched,
        "orchestration.goal.wait_resolution_receipt",
        {
            "waitID": wait_id,
            "effective_actor": caller.principal.ref(),
            "run_as": None,
        },
    )
    return touched, {"goal_id": goal.goal_id, "wait": woken.to_wire()}


async def apply_due_waits(rt: GoalRuntime, goal: Goal) -> Goal:
    """Fire every timer and timeout that is due; a timeout that cancels the run applies the goal's
    on_limit."""
    now = rt.now()
    for wait in await rt.repo.waits(goal.goal_id):
        due = apply_due(wait, now)
        if due is None:
            continue
        changed, kind = due
        payload: dict[str, Any] = {
            "goal_id": goal.goal_id,
            "wait_id": wait.wait_id,
            "run_id": wait.run_id,
            "status": changed.status,
        }
        if kind == "escalated":
            payload["escalate_to"] = (wait.timeout_policy or {}).get("escalate_to")
        if kind == "reminder":
            payload["reminder"] = (changed.metadata or {}).get("reminders_sent")
        goal = rt.stamp(goal)
        suffix = f"reminder:{payload['reminder']}" if kind == "reminder" else kind
        await rt.commit(
            Commit(
                goal=goal,
                waits=(changed,),
                events=(
                    NewEvent(
                        event_id=f"{wait.wait_id}:{suffix}",
                        event_type=_DUE_EVENTS[kind],
                        run_id=wait.run_id,
                        actor={"kind": "system", "id": "goal-timer"},
                        payload=payload,
                    ),
                ),
            )
        )
        if (
            kind == "timed_out"
            and (wait.timeout_policy or {}).get("on_timeout") == "cancel"
            and goal.active_run_id == wait.run_id
            and not goal.terminal
        ):
            goal = await apply_limit(rt, goal, "wait_timeout")
    return goal


__all__ = ["apply_due_waits", "find_wait", "resolve_wait"]
