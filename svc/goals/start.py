"""Starting a goal: the first commit of a goal, at its orchestration's root node.

A goal has no actor before it starts, so the start commits here: the goal row, its
root run link, the root node's gate wait (if any) and the ``goal.started`` event, in
one transaction. The goal id derives from the tenant, the orchestration and the
idempotency key, so the same start again (or a racing one) replays the first.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .errors import GoalStateConflict, InvalidGoalRequest, OrchestrationNotFound
from .events import STARTED, WAIT_CREATED, NewEvent
from .goal import Goal, RunLink
from .ids import goal_id_for, root_run_id_for
from .orchestration import normalize_metadata
from .repository import Commit, GoalExists
from .requests import MAX_METADATA_BYTES, StartGoal, check_key
from .waits import gate_wait

if TYPE_CHECKING:
    from .orchestration_repository import StoredOrchestration
    from .runtime import GoalRuntime
    from .tenancy import Caller


async def start_goal(
    rt: GoalRuntime,
    caller: Caller,
    body: StartGoal,
    activate: Callable[[str], Awaitable[Any]],
) -> dict[str, Any]:
    """Start a goal (``activate(goal_id)`` brings up its actor); the same key replays it."""
    key = check_key(body.idempotency_key)
    if not body.objective.strip():
        raise InvalidGoalRequest("`objective` must not be blank", field="objective")
    metadata = normalize_metadata(body.metadata) or {}
    metadata["started_by"] = caller.principal.ref()
    if len(json.dumps(metadata, separators=(",", ":"), default=str).encode()) > MAX_METADATA_BYTES:
        raise InvalidGoalRequest(f"`metadata` exceeds {MAX_METADATA_BYTES} bytes", field="metadata")
    stored = await version_to_start(rt, caller, body.orchestration_id, body.orchestration_version)
    spec = stored.spec
    goal_id = goal_id_for(f"{caller.tenant.scope}:{spec.orchestration_id}", key)
    root_run_id = root_run_id_for(goal_id, key)
    existing = await rt.repo.goal(goal_id, caller.tenant)
    if existing is not None:
        return _replay(existing, spec.version, root_run_id)
    root = spec.node(spec.root_node_id)
    if root is None or not root.is_workflow:
        raise InvalidGoalRequest(
            "the orchestration's root node is not a workflow node", field="orchestration_id"
        )
    if (stored.snapshots or {}).get(
        root.automation_id or ""
    ) is None or await rt.workflows.definition(root.automation_id or "") is None:
        raise InvalidGoalRequest(
            f"root workflow automation {root.automation_id!r} no longer exists",
            field="orchestration_id",
        )
    now = rt.now()
    goal = Goal(
        goal_id=goal_id,
        orchestration_id=spec.orchestration_id,
        orchestration_version=spec.version,
        objective=body.objective,
        status="active",
        tenant_context=caller.tenant,
        policy=spec.goal_policy,
        idempotency_key=key,
        created_at_ms=now,
        updated_at_ms=now,
        active_run_id=root_run_id,
        current_node_id=root.node_id,
        metadata={**metadata, "orchestration_snapshot": spec.to_wire()},
    )
    link = RunLink(
        goal_id=goal_id,
        run_id=root_run_id,
        orchestration_node_id=root.node_id,
        orchestration_version=spec.version,
        hop_index=0,
        created_at_ms=now,
    )
    gate = gate_wait(goal, root, root_run_id, now, {})
    events = [
        NewEvent(
            event_id=f"goal:{goal_id}:{STARTED}:{now}",
            event_type=STARTED,
            actor=caller.principal.ref(),
            payload={
                "goal_id": goal_id,
                "orchestration_id": spec.orchestration_id,
                "orchestration_version": spec.version,
                "root_run_id": root_run_id,
                "root_node_id": root.node_id,
                "objective": body.objective,
            },
        )
    ]
    if gate is not None:
        events.append(
            NewEvent(
                event_id=f"{gate.wait_id}:created",
                event_type=WAIT_CREATED,
                run_id=root_run_id,
                payload={
                    "goal_id": goal_id,
                    "wait_id": gate.wait_id,
                    "wait_kind": gate.wait_kind,
                    "run_id": root_run_id,
                },
            )
        )
    try:
        await rt.commit(
            Commit(
                goal=goal,
                insert_goal=True,
                links=(link,),
                waits=(gate,) if gate else (),
                events=tuple(events),
            )
        )
    except GoalExists:
        # The same start raced itself: the first one won; answer like a replay.
        raced = await rt.repo.goal(goal_id, caller.tenant)
        assert raced is not None
        return _replay(raced, spec.version, root_run_id)
    rt.bus(
        goal,
        "orchestration.goal.started",
        {
            "orchestrationID": spec.orchestration_id,
            "orchestrationVersion": spec.version,
            "rootRunID": root_run_id,
        },
    )
    # The actor starts the root run as it activates (unless a wait holds it).
    await activate(goal_id)
    started = await rt.repo.goal(goal_id) or goal
    return {"goal": started.to_wire(), "root_run_id": root_run_id, "replayed": False}


def _replay(goal: Goal, version: int, root_run_id: str) -> dict[str, Any]:
    if goal.orchestration_version != version:
        raise GoalStateConflict(
            f"idempotency key is already bound to orchestration {goal.orchestration_id} "
            f"version {goal.orchestration_version}",
            goal_id=goal.goal_id,
        )
    return {"goal": goal.to_wire(), "root_run_id": root_run_id, "replayed": True}


async def version_to_start(
    rt: GoalRuntime, caller: Caller, orchestration_id: str, version: int | None
) -> StoredOrchestration:
    """The published version named, else the latest one."""
    versions = rt.orchestration_repo
    if version is not None:
        if version < 1:
            raise InvalidGoalRequest(
                "`orchestration_version` must be a published version (1 or more)",
                field="orchestration_version",
            )
        stored = await versions.orchestration(caller.tenant, orchestration_id, version)
        if stored is None:
            raise OrchestrationNotFound(
                f"orchestration {orchestration_id!r} version {version} not found"
            )
        return stored
    stored = await versions.latest_published(caller.tenant, orchestration_id)
    if stored is not None:
        return stored
    if await versions.orchestration(caller.tenant, orchestration_id, 0) is not None:
        raise InvalidGoalRequest("orchestration has no published version", field="orchestration_id")
    raise OrchestrationNotFound(f"orchestration {orchestration_id!r} not found")


__all__ = ["start_goal", "version_to_start"]
