"""Routines (automations v1): ``/routines`` and ``/automations`` (SPEC §4.4).

``/routines`` and ``/automations`` manage the same routines (automations v1);
each answers in its own dialect (routine shape or mission shape) and accepts
both body shapes. ``/automations/v2`` (multi-agent DAG automations) is
:mod:`.automations_v2`, which shares this module's request helpers.
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
from ...automations.routines.compat import (
    client_run_status,
    definition_wire,
    flat_run,
    history_entries,
)
from ...errors import ValidationFailed
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


def principal() -> Principal:
    return engine().automations.principal(
        header("x-svc-agent-id"), header("x-svc-request-source"), header("x-svc-agent-ancestor-ids")
    )


def _both(path: str, **kwargs: Any) -> Callable[[Any], Any]:
    """Mount a handler at ``/routines<path>`` and ``/automations<path>`` (see ``dialect``)."""

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
    if dialect == "automation":
        return definition_wire(service.automation_wire(routine), "automation_id")
    return definition_wire(service.routine_wire(routine), "routine_id")


def _run_wire(run: RoutineRun, dialect: str) -> dict[str, Any]:
    return run.automation_wire() if dialect == "automation" else run.record_wire()


def reason(body: Mapping[str, Any]) -> str | None:
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
        await object_body(), principal=principal(), dialect=dialect
    )
    key = "automation" if dialect == "automation" else "routine"
    return {key: _routine_wire(routine, dialect)}


@_both("/<routine_id>", methods=["PATCH"])
async def patch_routine(routine_id: str, dialect: str) -> Any:
    routine = await engine().automations.routines.patch(
        routine_id, await object_body(), dialect=dialect
    )
    key = "automation" if dialect == "automation" else "routine"
    wire = _routine_wire(routine, dialect)
    # The record also at the top level: some clients read it there.
    return {**wire, key: wire}


@_both("/<routine_id>", methods=["DELETE"])
async def delete_routine(routine_id: str, dialect: str) -> Any:
    routine = await engine().automations.routines.delete(routine_id, dialect=dialect)
    if dialect == "automation":
        return {"ok": True, "automation": _routine_wire(routine, dialect)}
    return {"deleted": True, "routineID": routine_id}


@_both("/<routine_id>/run_now", methods=["POST"])
async def run_now(routine_id: str, dialect: str) -> Any:
    body = await object_body()
    run_count = body.get("run_count", body.get("runCount", 1))
    runs = await engine().automations.routines.run_now(
        routine_id,
        principal=principal(),
        run_count=run_count,
        reason=reason(body),
        dialect=dialect,
    )
    first = runs[0]
    # `status` in the clients' run vocabulary (a run awaiting approval is "queued"); the run's
    # own status stays in `run_status` (and in `run.status`).
    status = {"status": client_run_status(first.status), "run_status": first.status}
    if dialect == "automation":
        return {
            "ok": True,
            **status,
            "run": first.automation_wire(),
            "runs": [r.automation_wire() for r in runs],
            # Not in the reference's automation reply; clients read the id at the top level.
            "runID": first.run_id,
            "run_id": first.run_id,
            **first.context_links(),
        }
    return {
        "ok": True,
        **status,
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
    return {
        key: routine_id,
        "events": events,
        "history": history_entries(events),
        "count": len(events),
    }


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
    wire = _run_wire(run, dialect)
    # The run's main fields also at the top level, in the clients' vocabulary.
    id_key = "automation_id" if dialect == "automation" else "routine_id"
    return {**flat_run(wire, id_key), "run": wire}


@_both("/runs/<run_id>/approve", methods=["POST"])
async def approve_run(run_id: str, dialect: str) -> Any:
    body = await object_body()
    run = await engine().automations.routines.approve(
        run_id, principal=principal(), reason=reason(body)
    )
    return {"ok": True, "run": _run_wire(run, dialect), **run.context_links()}


@_both("/runs/<run_id>/deny", methods=["POST"])
async def deny_run(run_id: str, dialect: str) -> Any:
    body = await object_body()
    run = await engine().automations.routines.deny(
        run_id, principal=principal(), reason=reason(body)
    )
    return {"ok": True, "run": _run_wire(run, dialect), **run.context_links()}


@_both("/runs/<run_id>/pause", methods=["POST"])
async def pause_run(run_id: str, dialect: str) -> Any:
    body = await object_body()
    run, cancelled = await engine().automations.routines.pause(
        run_id, principal=principal(), reason=reason(body)
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
        run_id, principal=principal(), reason=reason(body)
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
def property_filter(
    *pairs: tuple[tuple[str, ...], tuple[str, ...]],
) -> Callable[[Event], bool] | None:
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


def ready_frames(stream: str) -> list[bytes]:
    return [
        json_frame({"status": "ready", "stream": stream, "timestamp_ms": engine().clock.now_ms()})
    ]


def _v1_filter(*, types: frozenset[str] | None) -> EventFilter:
    match = property_filter(
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
        preamble=ready_frames("automations"),
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
        preamble=ready_frames("routines"),
        render=_render_routine_event,
    )
    return sse_response(body)


__all__ = ["bp", "principal", "property_filter", "ready_frames", "reason", "routine_event_type"]
