"""Applying a plan: its package checked, overlap settled, an automation (v2) made of it.

An apply runs in the plan's turn (:attr:`PlannerService.serial`), so two applies or a
chat revision and an apply of one plan never interleave; an idempotency key replays
the stored answer of its first apply.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import Conflict
from .errors import AutomationsUnavailable, PlanInvalid
from .planner_records import PlanDraft
from .planner_requests import MAX_IDEMPOTENCY_KEY, ApplyRequest, absolute_workspace

if TYPE_CHECKING:
    from .planner_service import PlannerService


async def apply_plan(
    planner: PlannerService,
    request: ApplyRequest,
    *,
    agent_id: str | None,
    request_source: str | None,
) -> dict[str, Any]:
    from .overlap import OVERLAP_DECISIONS

    key = (request.idempotency_key or "").strip() or None
    if key is not None and len(key) > MAX_IDEMPOTENCY_KEY:
        raise PlanInvalid(
            f"`idempotency_key` may hold at most {MAX_IDEMPOTENCY_KEY} characters",
            field="idempotency_key",
        )
    if request.overlap_decision is not None and request.overlap_decision not in OVERLAP_DECISIONS:
        raise PlanInvalid(
            f"`overlap_decision` must be one of {', '.join(OVERLAP_DECISIONS)}",
            field="overlap_decision",
        )
    draft = await _draft_for_apply(planner, request)
    async with planner.serial.turn(draft.plan_id):
        if key is not None:
            previous = await planner.repo.get_apply(key)
            if previous is not None:
                if previous[0] != draft.plan_id:
                    raise Conflict(
                        "this idempotency key was used to apply another plan",
                        code="WORKFLOW_PLAN_IDEMPOTENCY_CONFLICT",
                        planID=previous[0],
                    )
                return {**previous[1], "replayed": True}
        return await _apply(
            planner, draft, request, key=key, agent_id=agent_id, request_source=request_source
        )


async def _draft_for_apply(planner: PlannerService, request: ApplyRequest) -> PlanDraft:
    from .plan_bodies import parse_plan_body
    from .plan_normalization import PlanContext, normalize_plan

    if request.plan_id is not None and request.plan_id.strip():
        return await planner.require_draft(request.plan_id)
    if request.plan is None:
        raise PlanInvalid("`plan_id` or `plan` is required", field="plan_id")
    body = parse_plan_body(request.plan)
    existing = await planner.repo.get_draft(body.plan_id) if body.plan_id else None
    ctx = PlanContext(
        plan_id=body.plan_id or f"wfplan-{uuid.uuid4()}",
        prompt=body.original_prompt or body.title or "",
        workspace_root=absolute_workspace(body.workspace_root, planner.engine.workspace),
        plan_source=body.plan_source or "apply_request",
        max_steps=max(planner.engine.settings.workflow_planner_max_steps, len(body.steps)),
        confidence=body.confidence or "medium",
    )
    plan = normalize_plan(body, ctx)
    now = planner.now()
    if existing is not None:
        draft = attrs.evolve(
            existing,
            current_plan=plan,
            plan_revision=existing.plan_revision + 1,
            updated_at_ms=now,
        )
    else:
        draft = PlanDraft(
            plan_id=plan.plan_id,
            initial_plan=plan,
            current_plan=plan,
            conversation_id=f"wfchat-{uuid.uuid4()}",
            created_at_ms=now,
            updated_at_ms=now,
        )
    await planner.repo.save_draft(draft)
    return draft


async def _apply(
    planner: PlannerService,
    draft: PlanDraft,
    request: ApplyRequest,
    *,
    key: str | None,
    agent_id: str | None,
    request_source: str | None,
) -> dict[str, Any]:
    from .materialize import plan_to_automation
    from .overlap import analyze_overlap
    from .plan_package import export_bundle
    from .plan_package_validation import validate_package
    from .schedule import is_manual
    from .studio import migrate_studio_workflow

    package = planner.package_of(draft)
    validation = validate_package(package)
    if not validation["ready_for_apply"]:
        raise PlanInvalid(
            "the plan cannot be applied: its package has blocking issues",
            field="plan",
            plan_package_validation=validation,
        )
    overlap = analyze_overlap(package, await planner.repo.applied_packages())
    if overlap["requires_user_confirmation"] and request.overlap_decision is None:
        raise Conflict(
            "this plan overlaps an applied plan; repeat the apply with an `overlap_decision`",
            code="WORKFLOW_PLAN_OVERLAP_CONFIRMATION_REQUIRED",
            overlap_analysis=overlap,
        )
    automations = planner.engine.automations
    if automations is None or not hasattr(automations, "create_v2"):
        raise AutomationsUnavailable(
            "plans are applied as automations v2, which this engine does not run"
        )
    session = await planner.repo.get_session(draft.session_id) if draft.session_id else None
    schedule, schedule_source = dict(draft.current_plan.schedule), "plan"
    if is_manual(schedule) and session is not None and session.staged_schedule:
        schedule, schedule_source = dict(session.staged_schedule), "staged_import"
    decision = request.overlap_decision or overlap["decision"]
    automation = None
    if decision == "reuse" and overlap["matched_plan_id"]:
        automation = await _reused_automation(planner, overlap["matched_plan_id"])
    created = automation is None
    if automation is None:
        status = "draft" if request.materialize_as_draft else "active"
        spec = plan_to_automation(
            draft.current_plan,
            revision=draft.plan_revision,
            package={**package, "lifecycle_state": "applied"},
            schedule=schedule,
            status=status,
            creator_id=request.creator_id,
        )
        spec, _ = migrate_studio_workflow(spec)
        automation = await automations.create_v2(
            spec, agent_id=agent_id, request_source=request_source
        )
    now = planner.now()
    materialization = {
        "plan_id": draft.plan_id,
        "plan_revision": draft.plan_revision,
        "automation_id": automation.automation_id,
        "automation_status": automation.status,
        "created": created,
        "schedule": schedule,
        "schedule_source": schedule_source,
        "overlap_decision": decision,
        "materialized_at_ms": now,
    }
    draft = attrs.evolve(
        draft,
        updated_at_ms=now,
        last_success_materialization={
            **materialization,
            "plan_package": {**package, "lifecycle_state": "applied"},
        },
    )
    await planner.repo.save_draft(draft)
    if session is not None:
        await planner.repo.save_session(
            attrs.evolve(
                session,
                published_at_ms=now,
                updated_at_ms=now,
                published_automation_id=automation.automation_id,
            )
        )
    response = {
        "ok": True,
        "plan": draft.current_plan.to_wire(),
        "plan_package": package,
        "plan_package_bundle": export_bundle(package),
        "overlap_analysis": overlap,
        "approved_plan_materialization": materialization,
        "automation": automation.to_wire(),
        "pack_builder_export": None,
    }
    if key is not None:
        await planner.repo.save_apply(
            key,
            plan_id=draft.plan_id,
            automation_id=automation.automation_id,
            response=response,
            now_ms=now,
        )
    planner.publish(
        "workflow.plan.applied",
        planID=draft.plan_id,
        planRevision=draft.plan_revision,
        automationID=automation.automation_id,
        created=created,
        scheduleSource=schedule_source,
    )
    return response


async def _reused_automation(planner: PlannerService, plan_id: str) -> Any:
    draft = await planner.repo.get_draft(plan_id)
    materialized = draft.last_success_materialization if draft else None
    if not materialized:
        return None
    return await planner.engine.automations.get_v2(materialized["automation_id"])


__all__ = ["apply_plan"]
