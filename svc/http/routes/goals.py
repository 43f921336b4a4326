"""Orchestrations and long-running goals: ``/orchestrations/...`` and ``/goals/...``.

Raw payload keys are snake_case. Routes parse, ask ``engine.goals`` and shape the reply.
The caller is the local operator, an agent (``x-svc-agent-id``), or, when
``goals_trust_tenant_headers`` is on, the tenant and principal the ``x-svc-org-id``,
``x-svc-workspace-id``, ``x-svc-deployment-id`` and ``x-svc-actor-*`` headers name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint, request

# Goal names are read from the lazy package when a request needs them: start-up only
# registers routes, and never parses a spec or a tenant (docs/architecture.md, "Start-up budget").
from ... import goals
from ...goals.errors import InvalidOrchestrationRevision
from ..request import engine, header, json_body, object_body, query_int, query_str
from ..sse import resume_cursor, sse_response

if TYPE_CHECKING:
    from ...goals import Caller

bp = Blueprint("goals", __name__)


def _names(value: str | None) -> frozenset[str]:
    return frozenset(v.strip() for v in (value or "").split(",") if v.strip())


def caller() -> Caller:
    tenant = goals.TenantContext()
    principal = goals.LOCAL_OPERATOR
    if engine().settings.goals_trust_tenant_headers:
        org, workspace = header("x-svc-org-id"), header("x-svc-workspace-id")
        deployment = header("x-svc-deployment-id")
        if org or workspace or deployment:
            tenant = goals.TenantContext.from_wire(
                {"org_id": org, "workspace_id": workspace, "deployment_id": deployment}
            )
        actor = header("x-svc-actor-id")
        if actor:
            principal = goals.Principal(
                actor,
                verified=True,
                roles=_names(header("x-svc-actor-roles")),
                capabilities=_names(header("x-svc-actor-capabilities")),
            )
    agent = header("x-svc-agent-id")
    if agent:
        principal = goals.Principal(agent, kind="agent")
    return goals.Caller(tenant, principal)


async def _revision() -> int | None:
    """An optional ``expected_updated_at_ms`` from a body that may be empty or JSON null."""
    body = await json_body(default={})
    if body is None:
        return None
    if not isinstance(body, dict):
        raise InvalidOrchestrationRevision(
            "the body must be an object with expected_updated_at_ms", field="$"
        )
    value = body.get("expected_updated_at_ms")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise InvalidOrchestrationRevision(
            "`expected_updated_at_ms` must be an integer", field="expected_updated_at_ms"
        )
    return value


# ---------------------------------------------------------------------- orchestrations
@bp.post("/orchestrations")
async def create_orchestration() -> Any:
    spec = await engine().goals.orchestrations.create_draft(
        caller(), goals.parse_spec(await json_body())
    )
    return goals.spec_response(spec), 201


@bp.get("/orchestrations")
async def list_orchestrations() -> Any:
    limit = query_int("limit", default=500, minimum=1, maximum=500, clamp=True) or 500
    items = await engine().goals.orchestrations.summaries(
        caller(), status=query_str("status"), limit=limit
    )
    return {"orchestrations": items, "count": len(items)}


@bp.get("/orchestrations/<orchestration_id>")
async def get_orchestration(orchestration_id: str) -> Any:
    return await engine().goals.orchestrations.get(caller(), orchestration_id)


@bp.put("/orchestrations/<orchestration_id>")
async def update_orchestration(orchestration_id: str) -> Any:
    spec = await engine().goals.orchestrations.update_draft(
        caller(), orchestration_id, goals.parse_spec(await json_body())
    )
    return goals.spec_response(spec)


@bp.post("/orchestrations/<orchestration_id>/archive")
async def archive_orchestration(orchestration_id: str) -> Any:
    spec = await engine().goals.orchestrations.archive(
        caller(), orchestration_id, await _revision()
    )
    return goals.spec_response(spec)


@bp.post("/orchestrations/<orchestration_id>/validate")
async def validate_orchestration(orchestration_id: str) -> Any:
    return await engine().goals.orchestrations.validate(caller(), orchestration_id)


@bp.get("/orchestrations/<orchestration_id>/stale-references")
async def stale_references(orchestration_id: str) -> Any:
    return await engine().goals.orchestrations.stale_references(caller(), orchestration_id)


@bp.post("/orchestrations/<orchestration_id>/refresh-references")
async def refresh_references(orchestration_id: str) -> Any:
    spec, refreshed = await engine().goals.orchestrations.refresh_references(
        caller(), orchestration_id, await _revision()
    )
    # Exactly the reference's shape: clients validate it strictly (no extra keys); the new
    # revision token is `orchestration.updated_at_ms`.
    return {"orchestration": spec.to_wire(), "refreshed_node_ids": refreshed}


@bp.post("/orchestrations/<orchestration_id>/publish")
async def publish_orchestration(orchestration_id: str) -> Any:
    spec = await engine().goals.orchestrations.publish(
        caller(), orchestration_id, await _revision()
    )
    return goals.spec_response(spec), 201


@bp.get("/orchestrations/<orchestration_id>/versions")
async def list_versions(orchestration_id: str) -> Any:
    versions = await engine().goals.orchestrations.versions(caller(), orchestration_id)
    return {"orchestration_id": orchestration_id, "versions": versions, "count": len(versions)}


@bp.get("/orchestrations/<orchestration_id>/versions/<int:version>")
async def get_version(orchestration_id: str, version: int) -> Any:
    stored = await engine().goals.orchestrations.version(caller(), orchestration_id, version)
    return goals.spec_response(stored.spec)


@bp.post("/orchestrations/<orchestration_id>/dry-run")
async def dry_run(orchestration_id: str) -> Any:
    return await engine().goals.orchestrations.dry_run(
        caller(), orchestration_id, goals.parse_dry_run(await json_body())
    )


# ---------------------------------------------------------------------- goals
@bp.post("/goals")
async def start_goal() -> Any:
    result = await engine().goals.start(caller(), goals.parse_start(await json_body()))
    return result, 200 if result["replayed"] else 201


@bp.get("/goals")
async def list_goals() -> Any:
    limit = query_int("limit", default=100, minimum=1, maximum=500, clamp=True) or 100
    items = await engine().goals.list_goals(
        caller(),
        status=query_str("status"),
        orchestration_id=query_str("orchestration_id"),
        limit=limit,
    )
    return {"goals": [g.to_wire() for g in items], "count": len(items)}


@bp.get("/goals/legacy/handoffs")
async def legacy_handoffs() -> Any:
    """Envelopes imported from ``<workspace>/shared/handoffs`` and the files quarantined instead."""
    return await engine().goals.legacy()


@bp.get("/goals/<goal_id>")
async def get_goal(goal_id: str) -> Any:
    return await engine().goals.view(caller(), goal_id)


@bp.get("/goals/<goal_id>/graph")
async def goal_graph(goal_id: str) -> Any:
    return await engine().goals.graph(caller(), goal_id)


@bp.get("/goals/<goal_id>/runs")
async def goal_runs(goal_id: str) -> Any:
    return await engine().goals.runs(caller(), goal_id)


@bp.get("/goals/<goal_id>/artifacts")
async def goal_artifacts(goal_id: str) -> Any:
    return await engine().goals.artifacts(caller(), goal_id)


@bp.get("/goals/<goal_id>/budgets")
async def goal_budgets(goal_id: str) -> Any:
    return await engine().goals.budgets(caller(), goal_id)


@bp.get("/goals/<goal_id>/handoffs")
async def goal_handoffs(goal_id: str) -> Any:
    return await engine().goals.handoffs(caller(), goal_id)


@bp.get("/goals/<goal_id>/waits")
async def goal_waits(goal_id: str) -> Any:
    return await engine().goals.waits(caller(), goal_id)


@bp.get("/goals/<goal_id>/waits/<wait_id>")
async def goal_wait(goal_id: str, wait_id: str) -> Any:
    return await engine().goals.wait(caller(), goal_id, wait_id)


@bp.get("/goals/<goal_id>/projection")
async def goal_projection(goal_id: str) -> Any:
    limit = (
        query_int(
            "limit",
            default=goals.PROJECTION_DEFAULT_LIMIT,
            minimum=1,
            maximum=goals.PROJECTION_MAX_LIMIT,
            clamp=True,
        )
        or goals.PROJECTION_DEFAULT_LIMIT
    )
    cursor = query_int("cursor", default=None, minimum=0)
    return await engine().goals.projection(caller(), goal_id, cursor=cursor, limit=limit)


@bp.get("/goals/<goal_id>/events")
async def goal_events(goal_id: str) -> Any:
    """JSON pages of durable events; the SSE stream for ``Accept: text/event-stream``."""
    if "text/event-stream" in request.headers.get("Accept", ""):
        return await goal_event_stream(goal_id)
    cursor = query_int("cursor", default=0, minimum=0) or 0
    limit = query_int("limit", default=250, minimum=1, maximum=1000, clamp=True) or 250
    return await engine().goals.events(caller(), goal_id, cursor=cursor, limit=limit)


@bp.get("/goals/<goal_id>/events/stream")
async def goal_event_stream(goal_id: str) -> Any:
    eng = engine()
    goal = await eng.goals.goal(caller(), goal_id)
    after = resume_cursor("cursor") or 0
    return sse_response(
        eng.goals.feed.frames(goal.goal_id, after=after),
        headers={"X-Event-Source": goals.EVENT_SOURCE},
    )


@bp.post("/goals/<goal_id>/pause")
async def pause_goal(goal_id: str) -> Any:
    return await engine().goals.pause(caller(), goal_id, goals.reason_of(await _optional_object()))


@bp.post("/goals/<goal_id>/resume")
async def resume_goal(goal_id: str) -> Any:
    return await engine().goals.resume(caller(), goal_id, goals.reason_of(await _optional_object()))


@bp.post("/goals/<goal_id>/cancel")
async def cancel_goal(goal_id: str) -> Any:
    return await engine().goals.cancel(caller(), goal_id, goals.reason_of(await _optional_object()))


@bp.post("/goals/<goal_id>/transitions")
async def goal_transition(goal_id: str) -> Any:
    result = await engine().goals.transition(
        caller(), goal_id, goals.parse_transition(await json_body())
    )
    return result, 202 if result["outcome"] == "pending_approval" else 200


@bp.post("/goals/<goal_id>/completion")
async def goal_completion(goal_id: str) -> Any:
    return await engine().goals.complete(
        caller(), goal_id, goals.parse_completion(await json_body(default={}))
    )


@bp.post("/goals/<goal_id>/handoffs/<handoff_id>/decision")
async def decide_handoff(goal_id: str, handoff_id: str) -> Any:
    body = await object_body()
    return await engine().goals.decide_handoff(
        caller(), goal_id, handoff_id, body.get("decision"), goals.reason_of(body)
    )


@bp.post("/goals/<goal_id>/waits/<wait_id>/resolve")
async def resolve_wait(goal_id: str, wait_id: str) -> Any:
    body = await object_body()
    return await engine().goals.resolve_wait(
        caller(), goal_id, wait_id, body.get("idempotency_key"), body.get("payload")
    )


@bp.post("/goals/<goal_id>/actions/<path:action_id>")
async def dispatch_action(goal_id: str, action_id: str) -> Any:
    return await engine().goals.dispatch_action(caller(), goal_id, action_id, await object_body())


async def _optional_object() -> dict[str, Any] | None:
    body = await json_body(default={})
    return body if isinstance(body, dict) else None
