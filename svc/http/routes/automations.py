"""Routines and automations: ``/routines``, ``/automations``, ``/automations/v2`` (SPEC §4.4).

``/routines`` and ``/automations`` manage the same routines (automations v1);
each answers in its own dialect (routine shape or mission shape) and accepts
both body shapes. ``/automations/v2`` manages multi-agent DAG automations.
Routes parse, delegate to ``engine.automations`` and format. The principal of a
request comes from ``x-svc-agent-id``, ``x-svc-request-source`` and
``x-svc-agent-ancestor-ids`` (SPEC §5.5).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from quart import Blueprint

from ...automations import Principal
from ...errors import Forbidden, ValidationFailed
from ...events import Event, EventFilter, json_frame
from ..request import engine, header, json_body, object_body, query_int, query_str
from ..sse import event_frames, resume_cursor, sse_response

if TYPE_CHECKING:
    from ...automations.routines import Routine, RoutineRun

bp = Blueprint("automations", __name__)

ROUTINE = {"dialect": "routine"}
AUTOMATION = {"dialect": "automation"}
V1_STREAM_TYPES = frozenset(
    {
        "run.started",
        "run.step",
        "run.completed",
        "run.failed",
        "approval.required",
        "routine.run.model_selected",
    }
)


def _principal() -> Principal:
    return engine().automations.principal(
        header("x-svc-agent-id"), header("x-svc-request-source"), header("x-svc-agent-ancestor-ids")
    )


def _both(path: str, **kwargs: Any) -> Callable[[Any], Any]:
    """Mount a handler at ``/routines<path>`` and ``/automations<path>`` (``dialect`` tells which)."""

    def wrap(fn: Any) -> Any:
        bp.route(
            "/routines" + path, defaults=ROUTINE, endpoint=fn.__name__ + "_routines", **kwargs
        )(fn)
        bp.route(
            "/automations" + path,
            defaults=AUTOMATION,
            endpoint=fn.__name__ + "_automations",
            **kwargs,
        )(fn)
        return fn

    return wrap


def _routine_wire(routine: Routine, dialect: str) -> dict[str, Any]:
    service = engine().automations.routines
    return (
        service.automation_wire(routine)
        if dialect == "automation"
        else service.routine_wire(routine)
    )


def _run_wire(run: RoutineRun, dialect: str) -> dict[str, Any]:
    return run.automation_wire() if dialect == "automation" else run.record_wire()


def _reason(body: Mapping[str, Any]) -> str | None:
    reason = body.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise ValidationFailed("`reason` must be a string", field="reason")
    return reason


# ---------------------------------------------------------------------- routines / automations v1
@_both("", methods=["GET"])
async def list_routines(dialect: str) -> Any:
    service = engine().automations.routines
    wires = [_routine_wire(r, dialect) for r in service.all_routines()]
    key = "automations" if dialect == "automation" else "routines"
    return {key: wires, "count": len(wires)}


@_both("", methods=["POST"])
async def create_routine(dialect: str) -> Any:
    routine = await engine().automations.routines.create(
        await object_body(), principal=_principal(), dialect=dialect
    )
    key = "automation" if dialect == "automation" else "routine"
    return {key: _routine_wire(routine, dialect)}


@_both("/<routine_id>", methods=["PATCH"])
async def patch_routine(routine_id: str, dialect: str) -> Any:
    routine = await engine().automations.routines.patch(
        routine_id, await object_body(), dialect=dialect
    )
    key = "automation" if dialect == "automation" else "routine"
    return {key: _routine_wire(routine, dialect)}


@_both("/<routine_id>", methods=["DELETE"])
async def delete_routine(routine_id: str, dialect: str) -> Any:
    routine = await engine().automations.routines.delete(routine_id, dialect=dialect)
    if dialect == "automation":
        return {"ok": True, "automation": routine.automation_wire()}
    return {"deleted": True, "routineID": routine_id}


@_both("/<routine_id>/run_now", methods=["POST"])
async def run_now(routine_id: str, dialect: str) -> Any:
    body = await object_body()
    run_count = body.get("run_count", body.get("runCount", 1))
    runs = await engine().automations.routines.run_now(
        routine_id,
        principal=_principal(),
        run_count=run_count,
        reason=_reason(body),
        dialect=dialect,
    )
    first = runs[0]
    if dialect == "automation":
        return {
            "ok": True,
            "status": first.status,
            "run": first.automation_wire(),
            "runs": [r.automation_wire() for r in runs],
            **first.context_links(),
        }
    return {
        "ok": True,
        "status": first.status,
        "routineID": routine_id,
        "runID": first.run_id,
        "runIDs": [r.run_id for r in runs],
        "runCount": len(runs),
        "firedAtMs": first.fired_at_ms,
        **first.context_links(),
    }


@_both("/<routine_id>/history", methods=["GET"])
async def history(routine_id: str, dialect: str) -> Any:
    service = engine().automations.routines
    service.require(routine_id, dialect=dialect)
    limit = query_int("limit", default=50, minimum=1, maximum=500, clamp=True)
    events = await service.history(routine_id, limit=limit or 50)
    key = "automationID" if dialect == "automation" else "routineID"
    return {key: routine_id, "events": events, "count": len(events)}


@_both("/runs", methods=["GET"])
async def list_runs(dialect: str) -> Any:
    if dialect == "automation":
        limit = query_int("limit", default=25, minimum=1, maximum=200, clamp=True)
    else:
        limit = query_int("limit", default=100, minimum=1, maximum=500, clamp=True)
    # Clients send `automation_id` as well as `routine_id`; both filter.
    routine_id = query_str("routine_id", "routineID", "automation_id", "automationID")
    runs = await engine().automations.routines.list_runs(routine_id=routine_id, limit=limit or 25)
    wires = [_run_wire(r, dialect) for r in runs]
    return {"runs": wires, "count": len(wires)}


@_both("/<routine_id>/runs", methods=["GET"])
async def routine_runs(routine_id: str, dialect: str) -> Any:
    service = engine().automations.routines
    service.require(routine_id, dialect=dialect)
    limit = query_int("limit", default=50, minimum=1, maximum=500, clamp=True)
    runs = await service.list_runs(routine_id=routine_id, limit=limit or 50)
    wires = [_run_wire(r, dialect) for r in runs]
    key = "automationID" if dialect == "automation" else "routineID"
    return {key: routine_id, "runs": wires, "count": len(wires)}


@_both("/runs/<run_id>", methods=["GET"])
async def get_run(run_id: str, dialect: str) -> Any:
    run = await engine().automations.routines.require_run(run_id)
    return {"run": _run_wire(run, dialect)}


@_both("/runs/<run_id>/approve", methods=["POST"])
async def approve_run(run_id: str, dialect: str) -> Any:
    body = await object_body()
    run = await engine().automations.routines.approve(
        run_id, principal=_principal(), reason=_reason(body)
    )
    return {"ok": True, "run": _run_wire(run, dialect), **run.context_links()}


@_both("/runs/<run_id>/deny", methods=["POST"])
async def deny_run(run_id: str, dialect: str) -> Any:
    body = await object_body()
    run = await engine().automations.routines.deny(
        run_id, principal=_principal(), reason=_reason(body)
    )
    return {"ok": True, "run": _run_wire(run, dialect), **run.context_links()}


@_both("/runs/<run_id>/pause", methods=["POST"])
async def pause_run(run_id: str, dialect: str) -> Any:
    body = await object_body()
    run, cancelled = await engine().automations.routines.pause(
        run_id, principal=_principal(), reason=_reason(body)
    )
    return {
        "ok": True,
        "run": _run_wire(run, dialect),
        "cancelledSessionIDs": cancelled,
        **run.context_links(),
    }


@_both("/runs/<run_id>/resume", methods=["POST"])
async def resume_run(run_id: str, dialect: str) -> Any:
    body = await object_body()
    run = await engine().automations.routines.resume(
        run_id, principal=_principal(), reason=_reason(body)
    )
    return {"ok": True, "run": _run_wire(run, dialect), **run.context_links()}


@_both("/runs/<run_id>/artifacts", methods=["GET"])
async def run_artifacts(run_id: str, dialect: str) -> Any:
    run = await engine().automations.routines.require_run(run_id)
    return {
        "runID": run_id,
        "artifacts": [dict(a) for a in run.artifacts],
        "count": len(run.artifacts),
        **run.context_links(),
    }


@_both("/runs/<run_id>/artifacts", methods=["POST"])
async def add_run_artifact(run_id: str, dialect: str) -> Any:
    run, artifact = await engine().automations.routines.add_artifact(run_id, await json_body())
    return {"ok": True, "run": _run_wire(run, dialect), "artifact": artifact, **run.context_links()}


# ---------------------------------------------------------------------- streams
def _property_filter(*pairs: tuple[str, tuple[str, ...]]) -> Callable[[Event], bool] | None:
    wanted = [
        (value, keys)
        for value, keys in ((query_str(*names), keys) for names, keys in pairs)
        if value
    ]
    if not wanted:
        return None

    def matches(event: Event) -> bool:
        return all(any(event.properties.get(k) == value for k in keys) for value, keys in wanted)

    return matches


def _ready(stream: str) -> list[bytes]:
    return [
        json_frame({"status": "ready", "stream": stream, "timestamp_ms": engine().clock.now_ms()})
    ]


def _v1_filter(*, types: frozenset[str] | None) -> EventFilter:
    match = _property_filter(
        (
            ("automation_id", "automationID", "routine_id", "routineID"),
            ("automationID", "routineID"),
        ),
        (("run_id", "runID"), ("runID",)),
    )
    return EventFilter(topic="automations", types=types, predicate=match)


@bp.get("/automations/events")
async def automations_events() -> Any:
    eng = engine()
    body = event_frames(
        eng.events,
        _v1_filter(types=V1_STREAM_TYPES),
        after_seq=resume_cursor(),
        preamble=_ready("automations"),
    )
    return sse_response(body)


_ROUTINE_NAMES = {
    "run.started": "routine.run.created",
    "run.completed": "routine.run.completed",
    "approval.required": "routine.approval_required",
}


def routine_event_type(event: Event) -> str:
    """The ``routine.*`` name an automation event has on ``/routines/events``."""
    if event.type in _ROUTINE_NAMES:
        return _ROUTINE_NAMES[event.type]
    if event.type == "run.step":
        return f"routine.run.{event.properties.get('step') or 'step'}"
    if event.type == "run.failed":
        status = event.properties.get("status")
        return {"blocked_policy": "routine.blocked", "denied": "routine.run.denied"}.get(
            str(status), "routine.run.failed"
        )
    return event.type


def _render_routine_event(event: Event) -> bytes:
    wire = json.loads(event.data)
    wire["type"] = routine_event_type(event)
    return json_frame(wire, id=event.seq)


@bp.get("/routines/events")
async def routines_events() -> Any:
    eng = engine()
    body = event_frames(
        eng.events,
        _v1_filter(types=None),
        after_seq=resume_cursor(),
        preamble=_ready("routines"),
        render=_render_routine_event,
    )
    return sse_response(body)


@bp.get("/automations/v2/events")
async def automations_v2_events() -> Any:
    eng = engine()
    match = _property_filter(
        (("automation_id", "automationID"), ("automationID",)), (("run_id", "runID"), ("runID",))
    )
    body = event_frames(
        eng.events,
        EventFilter(topic="automations/v2", predicate=match),
        after_seq=resume_cursor(),
        preamble=_ready("automations_v2"),
    )
    return sse_response(body)


# ---------------------------------------------------------------------- automations v2
@bp.post("/automations/v2")
async def create_v2() -> Any:
    automation = await engine().automations.v2.create(await object_body(), principal=_principal())
    return {"automation": automation.to_wire()}


@bp.get("/automations/v2")
async def list_v2() -> Any:
    status = query_str("status")
    found = engine().automations.v2.all_automations(status=status)
    summary = query_str("view") == "summary"
    wires = [a.summary_wire() if summary else a.to_wire() for a in found]
    return {"automations": wires, "count": len(wires)}


@bp.get("/automations/v2/<automation_id>")
async def get_v2(automation_id: str) -> Any:
    return {"automation": engine().automations.v2.require(automation_id).to_wire()}


@bp.patch("/automations/v2/<automation_id>")
async def patch_v2(automation_id: str) -> Any:
    automation = await engine().automations.v2.patch(
        automation_id, await object_body(), principal=_principal()
    )
    return {"automation": automation.to_wire()}


@bp.delete("/automations/v2/<automation_id>")
async def delete_v2(automation_id: str) -> Any:
    automation = await engine().automations.v2.delete(automation_id, principal=_principal())
    return {"ok": True, "automation": automation.to_wire()}


@bp.post("/automations/v2/<automation_id>/run_now")
async def run_v2_now(automation_id: str) -> Any:
    body = await object_body()
    dry_run = body.get("dry_run", body.get("dryRun", False))
    if not isinstance(dry_run, bool):
        raise ValidationFailed("`dry_run` must be a boolean", field="dry_run")
    context = body.get("context")
    if context is not None and not isinstance(context, Mapping):
        raise ValidationFailed("`context` must be an object", field="context")
    trigger_reason = body.get("trigger_reason", body.get("reason", ""))
    if not isinstance(trigger_reason, str):
        raise ValidationFailed("`trigger_reason` must be a string", field="trigger_reason")
    run = await engine().automations.v2.create_run(
        automation_id,
        trigger_type="manual",
        trigger_reason=trigger_reason,
        context=context,
        dry_run=dry_run,
    )
    return {
        "ok": True,
        "dry_run": dry_run,
        "run": run.to_wire(),
        "contextRunID": run.run_id,
        "linked_context_run_id": run.run_id,
    }


@bp.get("/automations/v2/<automation_id>/runs")
async def v2_automation_runs(automation_id: str) -> Any:
    service = engine().automations.v2
    service.require(automation_id)
    limit = query_int("limit", default=50, minimum=1, maximum=500, clamp=True)
    runs = await service.list_runs(automation_id=automation_id, limit=limit or 50)
    return {"automationID": automation_id, "runs": [r.to_wire() for r in runs], "count": len(runs)}


@bp.get("/automations/v2/runs")
async def v2_runs() -> Any:
    limit = query_int("limit", default=50, minimum=1, maximum=200, clamp=True)
    runs = await engine().automations.v2.list_runs(
        automation_id=query_str("automation_id", "automationID"), limit=limit or 50
    )
    return {"runs": [r.to_wire() for r in runs], "count": len(runs)}


@bp.get("/automations/v2/runs/<run_id>")
async def v2_run(run_id: str) -> Any:
    return {"run": (await _v2_run(run_id)).to_wire()}


async def _v2_run(run_id: str) -> Any:
    from ...automations import AutomationV2RunNotFound

    run = await engine().automations.get_v2_run(run_id)
    if run is None:
        raise AutomationV2RunNotFound(f"run `{run_id}` not found", runID=run_id)
    return run


@bp.post("/automations/v2/runs/<run_id>/cancel")
async def cancel_v2_run(run_id: str) -> Any:
    body = await object_body()
    await _v2_run(run_id)
    cancelled = await engine().automations.cancel_v2_run(
        run_id, _reason(body) or "cancelled by operator"
    )
    return {"ok": cancelled, "run": (await _v2_run(run_id)).to_wire()}


@bp.post("/automations/v2/runs/<run_id>/gate")
async def decide_v2_gate(run_id: str) -> Any:
    body = await object_body()
    decision = body.get("decision")
    if not isinstance(decision, str):
        raise ValidationFailed("`decision` must be approve, rework or cancel", field="decision")
    run = await engine().automations.v2.decide_gate(
        run_id, decision, reason=_reason(body), principal=_principal()
    )
    return {"ok": True, "run": run.to_wire()}


# ---------------------------------------------------------------------- agent governance (humans only)
def _governor() -> Any:
    if _principal().is_agent:
        raise Forbidden(
            "agent governance is decided by humans", code="AUTOMATION_V2_GOVERNANCE_REQUIRES_HUMAN"
        )
    return engine().automations.governance


@bp.get("/automations/v2/governance/agents/<agent_id>")
async def agent_governance(agent_id: str) -> Any:
    return {"agent": await engine().automations.governance.summary(agent_id)}


@bp.post("/automations/v2/governance/agents/<agent_id>/<action>")
async def govern_agent(agent_id: str, action: str) -> Any:
    governance = _governor()
    body = await object_body()
    if action == "pause":
        await governance.pause(agent_id, _reason(body))
    elif action == "resume":
        await governance.resume(agent_id)
    elif action == "review":
        await governance.mark_reviewed(agent_id)
    elif action == "quota-override":
        until = body.get("until_ms", body.get("expires_at_ms"))
        if until is not None and (isinstance(until, bool) or not isinstance(until, int)):
            raise ValidationFailed("`until_ms` must be epoch milliseconds", field="until_ms")
        await governance.override_quota(agent_id, until)
    elif action == "capabilities":
        key = body.get("capability_key")
        if key not in ("creates_agents", "modifies_grants"):
            raise ValidationFailed(
                "`capability_key` must be creates_agents or modifies_grants", field="capability_key"
            )
        expires = body.get("expires_at_ms")
        if expires is not None and (isinstance(expires, bool) or not isinstance(expires, int)):
            raise ValidationFailed(
                "`expires_at_ms` must be epoch milliseconds", field="expires_at_ms"
            )
        await governance.grant_capability(agent_id, key, expires)
    else:
        raise ValidationFailed(
            "action must be pause, resume, review, quota-override or capabilities", field="action"
        )
    return {"ok": True, "agent": await governance.summary(agent_id)}
