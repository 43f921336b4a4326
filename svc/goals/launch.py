"""Starting the automation run a goal reserved for a workflow node.

A run id is fixed when the goal enters the node (deterministic, recorded in the run
link), but the run itself is created in the automations domain only after that commit,
and only once no wait holds it. Creating it is idempotent: the actor calls
:func:`ensure_started` after every commit that could release a run and again whenever it
is activated (after a restart), so a crash between the commit and the creation is
repaired rather than lost.
"""

from __future__ import annotations

import logging
from typing import Any

from .events import RUN_STARTED, NewEvent
from .goal import Goal, RunLink, Wait
from .repository import Commit
from .runtime import GoalRuntime, PinnedVersion
from .waits import run_may_start
from .workflows import WorkflowRun

log = logging.getLogger("svc.goals")


def run_context(goal: Goal, link: RunLink, artifact: Any, waits: list[Wait]) -> dict[str, Any]:
    """What every node of the run sees as extra input: the goal, the incoming artifact, the wait's
    resolution."""
    context: dict[str, Any] = {
        "goal_id": goal.goal_id,
        "objective": goal.objective,
        "orchestration_id": goal.orchestration_id,
        "orchestration_version": goal.orchestration_version,
        "orchestration_node_id": link.orchestration_node_id,
        "hop_index": link.hop_index,
    }
    if artifact is not None:
        context["input_artifact"] = artifact
    for wait in waits:
        if wait.run_id == link.run_id and wait.status in ("woken", "timed_out"):
            context["wait"] = {
                "wait_id": wait.wait_id,
                "wait_kind": wait.wait_kind,
                "status": wait.status,
                "resolution": wait.resolution,
            }
    return context


async def ensure_started(rt: GoalRuntime, goal: Goal, pinned: PinnedVersion) -> WorkflowRun | None:
    """Create the goal's active run if it should be running and does not exist yet.

    Returns the run (existing or new), or None when it must not start (terminal or
    paused goal, or a wait still holds it). A failure to create it raises.
    """
    run_id = goal.active_run_id
    if run_id is None or goal.terminal or goal.status == "paused":
        return None
    existing = await rt.workflows.run(run_id)
    if existing is not None:
        return existing
    waits = await rt.repo.waits(goal.goal_id)
    if not run_may_start(waits, run_id):
        return None
    links = await rt.repo.links(goal.goal_id)
    link = next((lk for lk in links if lk.run_id == run_id), None)
    node = pinned.spec.node(link.orchestration_node_id if link else None)
    if link is None or node is None or not node.is_workflow:
        raise RuntimeError(f"goal {goal.goal_id} has no workflow link for its active run {run_id}")
    artifact = None
    if link.triggering_handoff_id is not None:
        handoff = next(
            (
                h
                for h in await rt.repo.handoffs(goal.goal_id)
                if h.handoff_id == link.triggering_handoff_id
            ),
            None,
        )
        artifact = handoff.artifact if handoff is not None else None
    automation_id = node.automation_id or ""
    snapshot = pinned.snapshots.get(automation_id)
    if snapshot is None:
        raise RuntimeError(f"orchestration version has no frozen definition of {automation_id!r}")
    root = link.hop_index == 0
    run = await rt.workflows.start_run(
        run_id=run_id,
        automation_id=automation_id,
        snapshot=snapshot,
        trigger_type="orchestration_goal_start" if root else "orchestration_handoff",
        trigger_reason=f"goal {goal.goal_id} started"
        if root
        else f"handoff {link.triggering_handoff_id} consumed by goal {goal.goal_id}",
        context=run_context(goal, link, artifact, waits),
    )
    await rt.commit(
        Commit(
            goal=goal,
            occurred_at_ms=rt.now(),
            events=(
                NewEvent(
                    event_id=f"{run_id}:started",
                    event_type=RUN_STARTED,
                    run_id=run_id,
                    causation_id=goal.goal_id,
                    payload={
                        "goal_id": goal.goal_id,
                        "run_id": run_id,
                        "automation_id": automation_id,
                        "orchestration_node_id": link.orchestration_node_id,
                        "hop_index": link.hop_index,
                    },
                ),
            ),
        )
    )
    log.info(
        "goal run started",
        extra={"goal_id": goal.goal_id, "run_id": run_id, "node": link.orchestration_node_id},
    )
    return run


__all__ = ["ensure_started", "run_context"]
