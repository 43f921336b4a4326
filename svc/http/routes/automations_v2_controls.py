"""Operator controls of automations v2 (on the ``automations_v2`` blueprint): pause and resume
an automation; pause, resume, recover and repair a run; retry, continue, requeue and
preview-reset one of its nodes ("tasks"); claim and requeue a node as a backlog task.

Routes parse, delegate to ``engine.automations.v2`` (:mod:`svc.automations.v2.controls`) and
format: a run is answered as ``{"ok", "run": <run wire>}`` plus what the control touched.
"""

from __future__ import annotations

from typing import Any

from ..request import engine, object_body
from .automations import principal, reason
from .automations_v2 import bp


def _answer(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "run": result["run"].to_wire()}


@bp.post("/automations/v2/<automation_id>/pause")
async def pause_v2(automation_id: str) -> Any:
    body = await object_body()
    service = engine().automations.v2
    automation = await service.patch(automation_id, {"status": "paused"}, principal=principal())
    return {"ok": True, "automation": automation.to_wire(), "reason": reason(body)}


@bp.post("/automations/v2/<automation_id>/resume")
async def resume_v2(automation_id: str) -> Any:
    await object_body()
    service = engine().automations.v2
    automation = await service.patch(automation_id, {"status": "active"}, principal=principal())
    return {"ok": True, "automation": automation.to_wire()}


@bp.post("/automations/v2/runs/<run_id>/pause")
async def pause_v2_run(run_id: str) -> Any:
    run = await engine().automations.v2.pause_run(run_id, reason(await object_body()))
    return {"ok": True, "run": run.to_wire()}


@bp.post("/automations/v2/runs/<run_id>/resume")
async def resume_v2_run(run_id: str) -> Any:
    run = await engine().automations.v2.resume_run(run_id, reason(await object_body()))
    return {"ok": True, "run": run.to_wire()}


@bp.post("/automations/v2/runs/<run_id>/recover")
async def recover_v2_run(run_id: str) -> Any:
    run = await engine().automations.v2.recover_run(run_id, reason(await object_body()))
    return {"ok": True, "run": run.to_wire()}


@bp.post("/automations/v2/runs/<run_id>/repair")
async def repair_v2_run(run_id: str) -> Any:
    return _answer(await engine().automations.v2.repair_run(run_id, await object_body()))


@bp.get("/automations/v2/runs/<run_id>/tasks/<node_id>/reset_preview")
async def preview_v2_task_reset(run_id: str, node_id: str) -> Any:
    service = engine().automations.v2
    return service.reset_preview(await service.require_run(run_id), node_id)


@bp.post("/automations/v2/runs/<run_id>/tasks/<node_id>/retry")
async def retry_v2_task(run_id: str, node_id: str) -> Any:
    note = reason(await object_body())
    return _answer(await engine().automations.v2.retry_task(run_id, node_id, note))


@bp.post("/automations/v2/runs/<run_id>/tasks/<node_id>/continue")
async def continue_v2_task(run_id: str, node_id: str) -> Any:
    note = reason(await object_body())
    return _answer(await engine().automations.v2.continue_task(run_id, node_id, note))


@bp.post("/automations/v2/runs/<run_id>/tasks/<node_id>/requeue")
async def requeue_v2_task(run_id: str, node_id: str) -> Any:
    note = reason(await object_body())
    return _answer(await engine().automations.v2.requeue_task(run_id, node_id, note))


@bp.post("/automations/v2/runs/<run_id>/backlog/tasks/<task_id>/claim")
async def claim_v2_backlog_task(run_id: str, task_id: str) -> Any:
    body = await object_body()
    return _answer(await engine().automations.v2.claim_backlog_task(run_id, task_id, body))


@bp.post("/automations/v2/runs/<run_id>/backlog/tasks/<task_id>/requeue")
async def requeue_v2_backlog_task(run_id: str, task_id: str) -> Any:
    note = reason(await object_body())
    return _answer(await engine().automations.v2.requeue_backlog_task(run_id, task_id, note))


__all__ = ["bp"]
