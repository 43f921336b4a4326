"""Workflows, hooks, workflow runs and their events; the workflow planner; multiplexed run
events."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from quart import Blueprint, request

from ... import workflows as domain
from ...convert import aliases, path_like, structure
from ...errors import ValidationFailed
from ...events import EventFilter, json_frame
from ...workflows import (
    MAX_TAIL,
    WorkflowService,
    normalize_workspace,
    parse_run_ids,
    planner_of,
    workflows_of,
)
from ..request import engine, header, json_body, query_int, query_str
from ..sse import event_frames, resume_cursor, sse_response

# The requester model and the planner's request shapes are read when a handler needs them
# (`domain.PlanRequest`): start-up decides no gate and plans nothing (docs/architecture.md,
# "Start-up budget").

if TYPE_CHECKING:
    from ...workflows import PlannerService

bp = Blueprint("workflows", __name__)


def service() -> WorkflowService:
    return workflows_of(engine())


# ---------------------------------------------------------------- bodies
@attrs.frozen
class ValidateBody:
    reload: bool = True


@attrs.frozen
class SimulateBody:
    event_type: str = aliases("eventType", "type")
    properties: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class RunBody:
    dry_run: bool = aliases("dryRun", default=False)
    workspace_root: str | None = aliases("workspaceRoot", default=None, validator=path_like)


@attrs.frozen
class GateBody:
    decision: str
    reason: str | None = None


@attrs.frozen
class CancelBody:
    reason: str | None = None


@attrs.frozen
class HookPatchBody:
    enabled: bool


def absolute_dir(value: str | None, field: str) -> str | None:
    """A client-supplied workspace root: absolute and an existing directory, or a 400 naming the
    field."""
    if value is None:
        return None
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise ValidationFailed(f"`{field}` must be an absolute path", field=field)
    if not path.is_dir():
        raise ValidationFailed(f"`{field}` {path} is not a directory", field=field)
    return str(path.resolve())


# ---------------------------------------------------------------- workflows
@bp.get("/workflows")
async def list_workflows() -> Any:
    workflows = service()
    specs = await workflows.list_workflows()
    return {
        "workflows": [s.to_wire() for s in specs],
        "automation_previews": {s.workflow_id: workflows.automation_preview(s) for s in specs},
        "count": len(specs),
    }


@bp.post("/workflows/validate")
async def validate_workflows() -> Any:
    body = structure(ValidateBody, await json_body())
    workflows = service()
    messages = await workflows.validate(reload=body.reload)
    return {"messages": [m.to_wire() for m in messages], "registry": workflows.registry.to_wire()}


@bp.post("/workflows/simulate")
async def simulate_workflow_event() -> Any:
    body = structure(SimulateBody, await json_body(allow_empty=False))
    if not body.event_type.strip():
        raise ValidationFailed("`event_type` must not be empty", field="event_type")
    simulation = await service().simulate(body.event_type.strip())
    return {"simulation": simulation.to_wire()}


@bp.get("/workflows/events")
async def workflow_events() -> Any:
    eng = engine()
    workflow_id = query_str("workflow_id", "workflowID", "workflowId")
    run_id = query_str("run_id", "runID", "runId")

    def wanted(event: Any) -> bool:
        return workflow_id is None or event.properties.get("workflowID") == workflow_id

    flt = EventFilter(
        topic="workflows", run_id=run_id, type_prefixes=("workflow.",), predicate=wanted
    )
    ready = json_frame(
        {"status": "ready", "stream": "workflows", "timestamp_ms": eng.clock.now_ms()}
    )
    return sse_response(event_frames(eng.events, flt, after_seq=resume_cursor(), preamble=[ready]))


@bp.get("/workflows/runs")
async def list_workflow_runs() -> Any:
    limit = query_int("limit", default=50, minimum=1, maximum=500, clamp=True) or 50
    runs = await service().list_runs(
        workflow_id=query_str("workflow_id", "workflowID"), limit=limit
    )
    return {"runs": [r.to_wire() for r in runs], "count": len(runs)}


@bp.get("/workflows/runs/<run_id>")
async def get_workflow_run(run_id: str) -> Any:
    return {"run": (await service().get_run(run_id)).to_wire()}


@bp.post("/workflows/runs/<run_id>/gate")
async def decide_workflow_gate(run_id: str) -> Any:
    from ...workflows import requester_from_headers

    body = structure(GateBody, await json_body(allow_empty=False))
    run = await service().decide_gate(
        run_id, body.decision, reason=body.reason, requester=requester_from_headers(request.headers)
    )
    return {"ok": True, "run": run.to_wire()}


@bp.post("/workflows/runs/<run_id>/cancel")
async def cancel_workflow_run(run_id: str) -> Any:
    body = structure(CancelBody, await json_body())
    run = await service().cancel_run(run_id, reason=body.reason)
    return {"ok": True, "run": run.to_wire()}


@bp.get("/workflows/<workflow_id>")
async def get_workflow(workflow_id: str) -> Any:
    workflows = service()
    spec = await workflows.get_workflow(workflow_id)
    return {
        "workflow": spec.to_wire(),
        "hooks": [h.to_wire() for h in await workflows.hooks(workflow_id)],
        "automation_preview": workflows.automation_preview(spec),
    }


@bp.post("/workflows/<workflow_id>/run")
async def run_workflow(workflow_id: str) -> Any:
    body = structure(RunBody, await json_body())
    run = await service().start_run(
        workflow_id,
        dry_run=body.dry_run,
        workspace_root=absolute_dir(body.workspace_root, "workspace_root"),
    )
    return {"run": run.to_wire()}


# ---------------------------------------------------------------- hooks
@bp.get("/workflow-hooks")
async def list_workflow_hooks() -> Any:
    hooks = await service().hooks(query_str("workflow_id", "workflowID", "workflowId"))
    return {"hooks": [h.to_wire() for h in hooks], "count": len(hooks)}


@bp.patch("/workflow-hooks/<binding_id>")
async def patch_workflow_hook(binding_id: str) -> Any:
    body = structure(HookPatchBody, await json_body(allow_empty=False))
    hook = await service().set_hook_enabled(binding_id, body.enabled)
    return {"hook": hook.to_wire()}


# ---------------------------------------------------------------- planner
def planner() -> PlannerService:
    return planner_of(engine())


@bp.post("/workflow-plans/preview")
async def preview_plan() -> Any:
    return await planner().preview(
        structure(domain.PlanRequest, await json_body(allow_empty=False))
    )


@bp.post("/workflow-plans/chat/start")
async def start_plan_chat() -> Any:
    return await planner().chat_start(
        structure(domain.PlanRequest, await json_body(allow_empty=False))
    )


@bp.post("/workflow-plans/chat/message")
async def plan_chat_message() -> Any:
    body = structure(domain.ChatMessageRequest, await json_body(allow_empty=False))
    return await planner().chat_message(body.plan_id, body.message)


@bp.post("/workflow-plans/chat/reset")
async def reset_plan_chat() -> Any:
    body = structure(domain.PlanIdRequest, await json_body(allow_empty=False))
    return await planner().chat_reset(body.plan_id)


@bp.post("/workflow-plans/apply")
async def apply_plan() -> Any:
    from ...workflows import AGENT_ID_HEADER, REQUEST_SOURCE_HEADER

    body = structure(domain.ApplyRequest, await json_body(allow_empty=False))
    return await planner().apply(
        body, agent_id=header(AGENT_ID_HEADER), request_source=header(REQUEST_SOURCE_HEADER)
    )


@bp.post("/workflow-plans/import/preview")
async def preview_plan_import() -> Any:
    return await planner().import_preview(
        structure(domain.ImportRequest, await json_body(allow_empty=False))
    )


@bp.post("/workflow-plans/import")
async def import_plan() -> Any:
    return await planner().import_bundle(
        structure(domain.ImportRequest, await json_body(allow_empty=False))
    )


@bp.get("/workflow-plans/sessions")
async def list_planner_sessions() -> Any:
    sessions = await planner().sessions(project_slug=query_str("project_slug", "projectSlug"))
    return {"sessions": [s.to_wire() for s in sessions], "count": len(sessions)}


@bp.get("/workflow-plans/sessions/<session_id>")
async def get_planner_session(session_id: str) -> Any:
    return {"session": await planner().session(session_id)}


@bp.get("/workflow-plans/<plan_id>")
async def get_plan(plan_id: str) -> Any:
    return await planner().get(plan_id)


# ---------------------------------------------------------------- multiplexed run events
@bp.get("/context/runs/events/stream")
async def context_run_events() -> Any:
    context = service().context_runs
    workspace = normalize_workspace(query_str("workspace"))
    run_ids = parse_run_ids(query_str("run_ids", "runIDs", "runIds"))
    await context.check_subscription(workspace, run_ids)
    tail = query_int("tail", default=None, minimum=1, maximum=MAX_TAIL, clamp=True)
    body = context.frames(workspace, run_ids, after_seq=resume_cursor("cursor"), tail=tail)
    return sse_response(body)
