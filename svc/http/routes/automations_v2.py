"""Automations v2 (multi-agent DAGs): ``/automations/v2`` and its agent governance (SPEC §4.4).

Routes parse, delegate to ``engine.automations`` and format. The principal of a
request comes from ``x-svc-agent-id``, ``x-svc-request-source`` and
``x-svc-agent-ancestor-ids`` (SPEC §5.5); agent governance is decided by humans.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quart import Blueprint

from ...errors import Forbidden, ValidationFailed
from ...events import EventFilter
from ..request import engine, object_body, query_int, query_str
from ..sse import event_frames, resume_cursor, sse_response
from .automations import principal, property_filter, ready_frames, reason

bp = Blueprint("automations_v2", __name__)


@bp.get("/automations/v2/events")
async def automations_v2_events() -> Any:
    eng = engine()
    match = property_filter(
        (("automation_id", "automationID"), ("automationID",)), (("run_id", "runID"), ("runID",))
    )
    body = event_frames(
        eng.events,
        EventFilter(topic="automations/v2", predicate=match),
        after_seq=resume_cursor(),
        preamble=ready_frames("automations_v2"),
    )
    return sse_response(body)


# ---------------------------------------------------------------------- automations v2
@bp.post("/automations/v2")
async def create_v2() -> Any:
    automation = await engine().automations.v2.create(await object_body(), principal=principal())
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
        automation_id, await object_body(), principal=principal()
    )
    return {"automation": automation.to_wire()}


@bp.delete("/automations/v2/<automation_id>")
async def delete_v2(automation_id: str) -> Any:
    automation = await engine().automations.v2.delete(automation_id, principal=principal())
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
        run_id, reason(body) or "cancelled by operator"
    )
    return {"ok": cancelled, "run": (await _v2_run(run_id)).to_wire()}


@bp.post("/automations/v2/runs/<run_id>/gate")
async def decide_v2_gate(run_id: str) -> Any:
    body = await object_body()
    decision = body.get("decision")
    if not isinstance(decision, str):
        raise ValidationFailed("`decision` must be approve, rework or cancel", field="decision")
    run = await engine().automations.v2.decide_gate(
        run_id, decision, reason=reason(body), principal=principal()
    )
    return {"ok": True, "run": run.to_wire()}


# ---------------------------------------------------------------------- agent governance (humans
# only)
def _governor() -> Any:
    if principal().is_agent:
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
        await governance.pause(agent_id, reason(body))
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


# The operator controls and the webhook triggers register on this blueprint.
from . import automations_v2_controls as _controls  # noqa: E402
from . import automations_v2_webhooks as _webhooks  # noqa: E402

__all__ = ["_controls", "_webhooks", "bp"]
