"""Importing a plan bundle: checked, previewed, and persisted as a planner session.

An imported bundle becomes a planner session holding a draft; nothing in it is
runnable until its plan is applied (its schedule is staged until then). The same
bundle into the same workspace again answers the session it made the first time.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import ValidationFailed
from .errors import ImportIncompatible
from .planner_records import ChatMessage, PlanDraft, PlannerSession
from .planner_requests import ImportRequest, absolute_workspace

if TYPE_CHECKING:
    from .planner_service import PlannerService
    from .plans import WorkflowPlan


def _import_check(planner: PlannerService, request: ImportRequest) -> tuple[dict[str, Any], str]:
    from .plan_import import validate_bundle

    if not isinstance(request.bundle, Mapping):
        raise ValidationFailed("`bundle` must be an object", field="bundle")
    report = validate_bundle(request.bundle)
    if not report["compatible"]:
        first = next(i for i in report["issues"] if i["blocking"])
        raise ImportIncompatible(
            f"the bundle cannot be imported: {first['message']}",
            field=f"bundle.{first['path']}",
            import_validation=report,
        )
    return report, absolute_workspace(request.workspace_root, planner.engine.workspace)


def _import_view(
    request: ImportRequest, report: dict[str, Any], workspace: str
) -> tuple[dict[str, Any], WorkflowPlan, Any]:
    from .plan_import import import_summary, plan_from_import, preview_import
    from .plan_normalization import clip
    from .plan_package_validation import validate_package

    preview = preview_import(
        request.bundle,
        workspace_root=workspace,
        creator_id=(request.creator_id or "local").strip() or "local",
    )
    plan = plan_from_import(preview)
    if request.title and request.title.strip():
        plan = attrs.evolve(plan, title=clip(request.title, 80))
    view = {
        "ok": True,
        "persisted": False,
        "bundle": request.bundle,
        "import_validation": report,
        "plan_package_preview": preview.plan_package,
        "plan_package_validation": validate_package(preview.plan_package),
        "derived_scope_snapshot": preview.derived_scope_snapshot,
        "summary": import_summary(preview.plan_package),
        "source_bundle_digest": preview.source_bundle_digest,
        "import_transform_log": list(preview.import_transform_log),
        "staged_schedule": preview.staged_schedule,
        "plan": plan.to_wire(),
    }
    return view, plan, preview


async def import_preview(planner: PlannerService, request: ImportRequest) -> dict[str, Any]:
    report, workspace = _import_check(planner, request)
    view, _plan, _preview = _import_view(request, report, workspace)
    return view


async def import_bundle(planner: PlannerService, request: ImportRequest) -> dict[str, Any]:
    """Persist the import as a planner session holding a draft; nothing becomes runnable."""
    report, workspace = _import_check(planner, request)
    view, plan, preview = _import_view(request, report, workspace)
    existing = await planner.repo.session_for_bundle(preview.source_bundle_digest, workspace)
    if existing is not None:
        draft = (
            await planner.repo.get_draft(existing.current_plan_id)
            if existing.current_plan_id
            else None
        )
        return {**view, "persisted": True, "existing": True, "session": existing.to_wire(draft)}
    now = planner.now()
    session_id = f"wfplan-session-{uuid.uuid4()}"
    draft = PlanDraft(
        plan_id=plan.plan_id,
        initial_plan=plan,
        current_plan=plan,
        conversation_id=f"wfchat-{uuid.uuid4()}",
        created_at_ms=now,
        updated_at_ms=now,
        session_id=session_id,
        messages=(
            ChatMessage(
                "system",
                f"Imported workflow bundle `{preview.source_bundle_digest[:12]}` from plan "
                f"`{preview.source_plan_id}`. Review and revise before applying; its "
                f"`{preview.staged_schedule['type']}` schedule is staged until then.",
                now,
            ),
        ),
        planner_diagnostics={
            "source_kind": "imported_bundle",
            "source_bundle_digest": preview.source_bundle_digest,
            "import_transform_log": list(preview.import_transform_log),
        },
    )
    session = PlannerSession(
        session_id=session_id,
        project_slug=(request.project_slug or "default").strip() or "default",
        title=plan.title,
        workspace_root=workspace,
        source_kind="imported_bundle",
        created_at_ms=now,
        updated_at_ms=now,
        current_plan_id=plan.plan_id,
        goal=plan.original_prompt,
        source_bundle_digest=preview.source_bundle_digest,
        plan_source=plan.plan_source,
        staged_schedule=preview.staged_schedule,
        import_validation=report,
        import_transform_log=preview.import_transform_log,
        import_scope_snapshot=preview.derived_scope_snapshot,
        creator_id=request.creator_id,
    )
    await planner.repo.save_draft(draft)
    await planner.repo.save_session(session)
    planner.publish(
        "workflow.plan.imported",
        planID=plan.plan_id,
        plannerSessionID=session_id,
        sourceBundleDigest=preview.source_bundle_digest,
        stagedSchedule=preview.staged_schedule["type"],
    )
    return {**view, "persisted": True, "existing": False, "session": session.to_wire(draft)}


__all__ = ["import_bundle", "import_preview"]
