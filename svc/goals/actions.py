"""Dispatching a projection action (``POST /goals/{goal_id}/actions/{action_id}``).

Runs inside the goal's actor, so the staleness check and the action are one step.
Order: the request's shape; authority for the action's kind; the idempotency ledger (a
repeat with the same digest returns the stored result, a different payload under the
same key is a 409); the live ``updated_at_ms`` the caller saw (stale: 409); the action
must be advertised and enabled; then it runs, its result is stored under the key, and a
fresh live projection comes back with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..convert import structure
from ..errors import ValidationFailed
from .control import cancel, pause, resume
from .errors import (
    GoalActionIdempotencyConflict,
    GoalActionNotAvailable,
    GoalActionReasonRequired,
    InvalidGoalAction,
    StaleGoalAction,
)
from .handoff_decisions import decide_handoff
from .ids import digest
from .projection import build_projection
from .projection_actions import action_descriptors
from .tenancy import APPROVE, RESOLVE_WAIT, Caller, owner_id_of
from .wait_ops import resolve_wait

if TYPE_CHECKING:
    from .actor import GoalActor

MAX_KEY_BYTES = 256


@attrs.frozen
class ActionBody:
    expected_updated_at_ms: int
    idempotency_key: str
    reason: str | None = None
    decision: str | None = None
    payload: Any = None


def parse_action(data: Any) -> ActionBody:
    try:
        body = structure(ActionBody, data)
    except ValidationFailed as exc:
        raise InvalidGoalAction(exc.message, field=exc.extra.get("field")) from None
    key = body.idempotency_key.strip()
    if not key or len(key.encode()) > MAX_KEY_BYTES:
        raise InvalidGoalAction(
            f"`idempotency_key` must be 1 to {MAX_KEY_BYTES} bytes", field="idempotency_key"
        )
    return attrs.evolve(body, idempotency_key=key)


def _reason(body: ActionBody) -> str | None:
    return body.reason.strip() if body.reason and body.reason.strip() else None


async def dispatch(actor: GoalActor, caller: Caller, action_id: str, raw: Any) -> dict[str, Any]:
    body = parse_action(raw)
    rt, goal = actor.rt, actor.goal
    if action_id.startswith("handoff:"):
        caller.require_authority(APPROVE)
    elif action_id.startswith("wait:"):
        caller.require_authority(RESOLVE_WAIT)
    else:
        caller.require_goal_owner(owner_id_of(goal.started_by))
    operation = f"goal_action:{goal.goal_id}:{action_id}"
    request_digest = digest(
        {
            "goal_id": goal.goal_id,
            "action_id": action_id,
            "expected_updated_at_ms": body.expected_updated_at_ms,
            "reason": body.reason,
            "decision": body.decision,
            "payload": body.payload,
        }
    )
    prior = await rt.ledger.request(caller.tenant, operation, body.idempotency_key)
    if prior is not None:
        if prior.request_digest != request_digest:
            raise GoalActionIdempotencyConflict(
                "the idempotency key is bound to a different action request"
            )
        if prior.completed_at_ms is None:
            raise GoalActionIdempotencyConflict(
                "an action with this idempotency key is in flight or its outcome "
                "is unknown; use a new key"
            )
        replayed: dict[str, Any] = prior.response
        return replayed
    if body.expected_updated_at_ms != goal.updated_at_ms:
        raise StaleGoalAction(
            "the goal changed since that projection; reload it and retry",
            expected_updated_at_ms=body.expected_updated_at_ms,
            current_updated_at_ms=goal.updated_at_ms,
            goal=goal.to_wire(),
        )
    handoffs = await rt.repo.handoffs(goal.goal_id)
    waits = await rt.repo.waits(goal.goal_id)
    descriptor = next(
        (a for a in action_descriptors(goal, handoffs, waits, caller) if a["id"] == action_id), None
    )
    if descriptor is None or not descriptor["enabled"]:
        decided = _already_decided(action_id, handoffs, body)
        if decided is not None:
            return {"goal": goal.to_wire(), "action": {"id": action_id, "result": decided}}
        raise GoalActionNotAvailable(
            descriptor["disabled_reason"]
            if descriptor
            else f"action {action_id!r} is not available for this goal",
            action_id=action_id,
        )
    # Reserved before it runs: a crash mid-action leaves the key "outcome unknown" (409 on
    # retry) rather than letting a retry apply the action twice.
    await rt.ledger.reserve_request(
        caller.tenant, operation, body.idempotency_key, request_digest, rt.now()
    )
    try:
        result = await _execute(actor, caller, action_id, descriptor, body)
    except Exception:
        # The action was refused (bad input, authority): nothing happened, so the key is free again.
        await rt.ledger.release_request(caller.tenant, operation, body.idempotency_key)
        raise
    projection = await build_projection(rt, actor.goal, actor.pinned, caller, cursor=None)
    response = {
        "goal": actor.goal.to_wire(),
        "action": {"id": action_id, "result": result},
        "projection_cursor": projection["cursor"],
        "projection": projection,
    }
    await rt.ledger.complete_request(
        caller.tenant, operation, body.idempotency_key, response, rt.now()
    )
    rt.bus(
        actor.goal,
        "orchestration.goal.action_receipt",
        {
            "effective_actor": caller.principal.ref(),
            "run_as": None,
            "action": action_id,
            "outcome": result.get("outcome"),
        },
    )
    return response


async def _execute(
    actor: GoalActor,
    caller: Caller,
    action_id: str,
    descriptor: Mapping[str, Any],
    body: ActionBody,
) -> dict[str, Any]:
    rt = actor.rt
    reason = _reason(body)
    kind = descriptor["kind"]
    if kind in ("pause", "cancel") and reason is None:
        raise GoalActionReasonRequired(f"the {kind} action requires a reason", field="reason")
    if kind == "pause":
        goal, out = await actor.perform(pause(rt, actor.goal, caller, reason or ""))
        return {"outcome": out["outcome"], "goal": goal.to_wire()}
    if kind == "resume":
        goal, out = await actor.perform(resume(rt, actor.goal, caller, reason or "operator resume"))
        return {"outcome": out["outcome"], "goal": goal.to_wire()}
    if kind == "cancel":
        goal, out = await actor.perform(cancel(rt, actor.goal, caller, reason or ""))
        return {"outcome": out["outcome"], "goal": goal.to_wire()}
    if kind == "handoff":
        if body.decision not in ("approve", "reject"):
            raise InvalidGoalAction("`decision` must be approve or reject", field="decision")
        if body.decision == "reject" and reason is None:
            raise GoalActionReasonRequired("rejecting a handoff requires a reason", field="reason")
        goal, out = await actor.perform(
            decide_handoff(rt, actor.goal, caller, descriptor["target_id"], body.decision, reason)
        )
        return {"outcome": "decided", "handoff": out["handoff"], "goal": goal.to_wire()}
    goal, out = await actor.perform(
        resolve_wait(
            rt, actor.goal, caller, descriptor["target_id"], body.idempotency_key, body.payload
        )
    )
    return {"outcome": "resolved", "wait": out["wait"], "goal": goal.to_wire()}


def _already_decided(
    action_id: str, handoffs: list[Any], body: ActionBody
) -> dict[str, Any] | None:
    """A decision action on a handoff already decided the same way answers ``already_decided``."""
    parts = action_id.split(":")
    if len(parts) != 3 or parts[0] != "handoff" or parts[2] != "decision":
        return None
    wanted = {"approve": "approved", "reject": "rejected"}.get(body.decision or "")
    for handoff in handoffs:
        if handoff.handoff_id == parts[1] and handoff.status == wanted:
            return {"outcome": "already_decided", "handoff": handoff.to_wire()}
    return None


__all__ = ["ActionBody", "dispatch", "parse_action"]
