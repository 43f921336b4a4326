"""The transition kernel: a named transition hands the active run's artifact to the next
workflow node.

It runs inside the goal's actor, one at a time per goal, so two transitions of one goal
never race: the second sees the first's result. It commits its records and its durable event
in one transaction. See :mod:`svc.goals.transitions` for the check order; completion is in
:mod:`svc.goals.completion` and handoff decisions in :mod:`svc.goals.handoff_decisions`.
"""

from __future__ import annotations

from typing import Any

import attrs

from .charging import charged, usage_of
from .errors import GoalStateConflict, InvalidGoalRequest
from .events import HANDOFF_PENDING, TRANSITIONED, WAIT_CREATED, NewEvent
from .goal import Goal, Handoff, RunLink
from .ids import downstream_run_id_for, handoff_id_for
from .repository import Commit
from .runtime import GoalRuntime, PinnedVersion
from .tenancy import Caller, owner_id_of
from .transitions import admit, check_goal_open, plan_transition
from .waits import gate_wait


@attrs.frozen
class TransitionRequest:
    transition_key: str
    idempotency_key: str
    artifact: dict[str, Any] | None = None


class LimitRejected(Exception):
    """A goal-policy limit rejected the transition; the actor applies it, then reports it."""

    def __init__(self, limit: str) -> None:
        super().__init__(limit)
        self.limit = limit


def _committed_body(
    goal: Goal, handoff: Handoff, link: RunLink | None, commit: str
) -> dict[str, Any]:
    return {
        "outcome": "committed",
        "commit": commit,
        "handoff": handoff.to_wire(),
        "downstream_run_id": handoff.consumed_by_run_id,
        "link": link.to_wire() if link else None,
        "goal": goal.to_wire(),
    }


async def transition(
    rt: GoalRuntime, goal: Goal, pinned: PinnedVersion, caller: Caller, request: TransitionRequest
) -> tuple[Goal, dict[str, Any]]:
    """Emit a named transition. Returns the goal and the body (``outcome`` committed or
    pending_approval)."""
    check_goal_open(goal)
    caller.require_goal_owner(owner_id_of(goal.started_by))
    key = request.idempotency_key
    handoff_id = handoff_id_for(goal.goal_id, key)
    run_id = downstream_run_id_for(goal.goal_id, key)
    existing = await rt.repo.handoff_by_key(goal.goal_id, key)
    if existing is not None:
        if (
            existing.handoff_id != handoff_id
            or existing.transition_key != request.transition_key
            or existing.artifact != request.artifact
        ):
            raise InvalidGoalRequest(
                "idempotency key is bound to a different transition payload",
                field="idempotency_key",
            )
        if existing.status == "consumed":
            link = next(
                (
                    lk
                    for lk in await rt.repo.links(goal.goal_id)
                    if lk.triggering_handoff_id == handoff_id
                ),
                None,
            )
            return goal, _committed_body(goal, existing, link, "AlreadyCommitted")
        if existing.status == "pending_approval":
            return goal, {
                "outcome": "pending_approval",
                "handoff": existing.to_wire(),
                "goal": goal.to_wire(),
            }
        if existing.status != "approved":
            raise GoalStateConflict(
                f"the handoff is {existing.status} and no longer eligible",
                handoff_id=handoff_id,
                handoff_status=existing.status,
            )

    source_run = await rt.workflows.run(goal.active_run_id) if goal.active_run_id else None
    plan = plan_transition(
        goal,
        pinned.spec,
        source_run,
        request.transition_key,
        request.artifact,
        pinned.snapshots,
        rt.workflows.hash_of,
    )
    assert source_run is not None  # check_source guarantees it
    target_automation = plan.target.automation_id or ""
    if await rt.workflows.definition(target_automation) is None:
        raise InvalidGoalRequest(
            f"target workflow automation {target_automation!r} no longer exists", check="tenant"
        )
    now = rt.now()
    handoff = existing or Handoff(
        handoff_id=handoff_id,
        idempotency_key=key,
        goal_id=goal.goal_id,
        orchestration_id=goal.orchestration_id,
        orchestration_version=goal.orchestration_version,
        tenant_context=goal.tenant_context,
        edge_id=plan.edge.edge_id,
        transition_key=request.transition_key,
        source_automation_id=plan.source.automation_id or "",
        source_run_id=source_run.run_id,
        source_node_id=plan.source.node_id,
        target_automation_id=target_automation,
        target_node_id=plan.target.node_id,
        artifact=request.artifact,
        status="pending_approval",
        created_at_ms=now,
        updated_at_ms=now,
        metadata={
            "actor": caller.principal.ref(),
            "pinned_definition_hash": plan.target.pinned_definition_hash,
        },
    )

    # 6. approval: the gate holds the handoff until a human decides.
    if plan.edge.approval_required and handoff.status != "approved":
        waiting = rt.stamp(goal, status="waiting", status_reason="handoff_pending_approval")
        await rt.commit(
            Commit(
                goal=waiting,
                handoffs=(handoff,),
                events=(
                    NewEvent(
                        event_id=f"{handoff_id}:pending_approval",
                        event_type=HANDOFF_PENDING,
                        actor=caller.principal.ref(),
                        causation_id=source_run.run_id,
                        payload={
                            "goal_id": goal.goal_id,
                            "handoff_id": handoff_id,
                            "edge_id": plan.edge.edge_id,
                            "transition_key": request.transition_key,
                            "target_node_id": plan.target.node_id,
                        },
                    ),
                ),
            )
        )
        rt.bus(waiting, "orchestration.goal.handoff_pending_approval", {"handoffID": handoff_id})
        return waiting, {
            "outcome": "pending_approval",
            "handoff": handoff.to_wire(),
            "goal": waiting.to_wire(),
        }

    # 7. limits
    add_tokens, add_cost = usage_of(goal, source_run)
    limit = admit(goal, now, add_tokens=add_tokens, add_cost_usd=add_cost)
    if limit is not None:
        raise LimitRejected(limit)

    # commit: the handoff is consumed by the downstream run, which becomes the active run.
    consumed = attrs.evolve(
        handoff, status="consumed", consumed_by_run_id=run_id, updated_at_ms=now
    )
    link = RunLink(
        goal_id=goal.goal_id,
        run_id=run_id,
        orchestration_node_id=plan.target.node_id,
        orchestration_version=goal.orchestration_version,
        hop_index=goal.hop_count + 1,
        created_at_ms=now,
        parent_run_id=source_run.run_id,
        triggering_handoff_id=handoff_id,
    )
    moved = rt.stamp(
        goal,
        status="active",
        status_reason=None,
        active_run_id=run_id,
        current_node_id=plan.target.node_id,
        hop_count=goal.hop_count + 1,
        **charged(goal, source_run),
    )
    gate = gate_wait(moved, plan.target, run_id, now, source_run.node_outputs)
    events = [
        NewEvent(
            event_id=f"{handoff_id}:transition",
            event_type=TRANSITIONED,
            actor=caller.principal.ref(),
            causation_id=source_run.run_id,
            payload={
                "goal_id": goal.goal_id,
                "handoff_id": handoff_id,
                "edge_id": plan.edge.edge_id,
                "transition_key": request.transition_key,
                "source_node_id": plan.source.node_id,
                "target_node_id": plan.target.node_id,
                "downstream_run_id": run_id,
                "hop_index": link.hop_index,
                "artifact_type": (request.artifact or {}).get("artifact_type"),
            },
        )
    ]
    if gate is not None:
        events.append(_wait_created(gate))
    await rt.commit(
        Commit(
            goal=moved,
            handoffs=(consumed,),
            links=(link,),
            waits=(gate,) if gate else (),
            events=tuple(events),
        )
    )
    rt.bus(
        moved,
        "orchestration.goal.transitioned",
        {"run": run_id, "commit": "Committed", "runID": run_id},
    )
    return moved, _committed_body(moved, consumed, link, "Committed")


def _wait_created(wait: Any) -> NewEvent:
    return NewEvent(
        event_id=f"{wait.wait_id}:created",
        event_type=WAIT_CREATED,
        run_id=wait.run_id,
        payload={
            "goal_id": wait.goal_id,
            "wait_id": wait.wait_id,
            "wait_kind": wait.wait_kind,
            "run_id": wait.run_id,
            "phase_id": wait.phase_id,
            "wake_at_ms": wait.wake_at_ms,
            "timeout_policy": wait.timeout_policy,
        },
    )


__all__ = ["LimitRejected", "TransitionRequest", "transition"]
