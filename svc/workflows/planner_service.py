"""The planner facade: drafts, chat revisions, apply, import, planner sessions.

Every response about a draft has the same core (:meth:`PlannerService.view`):
the plan, its compiled package and bundle, the package validation, the overlap
analysis against plans already applied, and the planner diagnostics.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..convert import aliases
from ..errors import Conflict, ValidationFailed
from .errors import (
    AutomationsUnavailable,
    ImportIncompatible,
    PlanInvalid,
    PlannerSessionNotFound,
    PlanNotFound,
)
from .executor import TOPIC
from .planner import Planner
from .planner_store import ChatMessage, PlanDraft, PlannerSession, PlannerStore

if TYPE_CHECKING:
    from ..engine import Engine
    from .plans import PlanContext, WorkflowPlan

# The plan model, packages, overlap analysis, imports and materialization are imported on
# first use: start-up builds the planner service but never plans, applies or imports
# (docs/architecture.md, "Start-up budget").

MAX_IDEMPOTENCY_KEY = 256

TEACHING_LIBRARY: Mapping[str, Any] = {
    "version": 1,
    "topics": [
        {
            "id": "explain",
            "summary": "what the plan does, why each step exists and what it produces",
        },
        {
            "id": "objections",
            "summary": "missing inputs, unsafe assumptions and missing connectors",
        },
        {
            "id": "proof_points",
            "summary": "the artifacts and checks that show the workflow succeeded",
        },
        {
            "id": "connector_backed_work",
            "summary": "use the allowed MCP servers for source-specific systems",
        },
        {
            "id": "recurring_work",
            "summary": "give a schedule only when the request asks for a recurring run",
        },
    ],
}


# ---------------------------------------------------------------- request bodies
@attrs.frozen
class PlanRequest:
    prompt: str
    schedule: Any = None
    plan_source: str | None = aliases("planSource", default=None)
    progress_id: str | None = aliases("progressId", "progressID", default=None)
    allowed_mcp_servers: list[str] = aliases("allowedMcpServers", factory=list)
    workspace_root: str | None = aliases("workspaceRoot", default=None)
    operator_preferences: dict[str, Any] | None = aliases("operatorPreferences", default=None)


@attrs.frozen
class ChatMessageRequest:
    plan_id: str = aliases("planId", "planID")
    message: str


@attrs.frozen
class PlanIdRequest:
    plan_id: str = aliases("planId", "planID")


@attrs.frozen
class ApplyRequest:
    plan_id: str | None = aliases("planId", "planID", default=None)
    plan: dict[str, Any] | None = None
    creator_id: str | None = aliases("creatorId", "creatorID", default=None)
    overlap_decision: str | None = aliases("overlapDecision", default=None)
    materialize_as_draft: bool = aliases("materializeAsDraft", default=False)
    idempotency_key: str | None = aliases("idempotencyKey", default=None)
    pack_builder_export: dict[str, Any] | None = aliases("packBuilderExport", default=None)


@attrs.frozen
class ImportRequest:
    bundle: Any
    creator_id: str | None = aliases("creatorId", "creatorID", default=None)
    project_slug: str | None = aliases("projectSlug", default=None)
    title: str | None = None
    workspace_root: str | None = aliases("workspaceRoot", default=None)


def absolute_workspace(value: str | None, default: Path) -> str:
    if value is None or not value.strip():
        return str(default)
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise PlanInvalid("`workspace_root` must be an absolute path", field="workspace_root")
    return str(path)


class PlannerService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.store = PlannerStore(engine.store)
        self.planner = Planner(engine)
        self._locks: dict[str, trio.Lock] = {}

    def now(self) -> int:
        return self.engine.clock.now_ms()

    def _lock(self, plan_id: str) -> trio.Lock:
        return self._locks.setdefault(plan_id, trio.Lock())

    def publish(self, type: str, **properties: Any) -> None:
        self.engine.events.publish(type, properties, topic=TOPIC)

    # ------------------------------------------------------------ views
    def package_of(self, draft: PlanDraft, *, lifecycle: str = "preview") -> dict[str, Any]:
        from .plan_package import compile_package

        return compile_package(
            draft.current_plan, revision=draft.plan_revision, lifecycle=lifecycle
        )

    async def view(
        self, draft: PlanDraft, *, replay: bool = False, conversation: bool = False
    ) -> dict[str, Any]:
        from .overlap import analyze_overlap
        from .plan_package import compare_replay, compile_package, export_bundle, validate_package

        package = self.package_of(draft)
        view: dict[str, Any] = {
            "plan": draft.current_plan.to_wire(),
            "plan_revision": draft.plan_revision,
            "plan_package": package,
            "plan_package_bundle": export_bundle(package),
            "plan_package_validation": validate_package(package),
            "overlap_analysis": analyze_overlap(package, await self.store.applied_packages()),
            "teaching_library": TEACHING_LIBRARY,
            "planner_diagnostics": dict(draft.planner_diagnostics)
            if draft.planner_diagnostics
            else None,
        }
        if replay:
            initial = compile_package(draft.initial_plan, revision=1)
            view["plan_package_replay"] = compare_replay(initial, package)
        if conversation:
            view["conversation"] = draft.conversation()
        if draft.last_success_materialization:
            materialized = {
                k: v for k, v in draft.last_success_materialization.items() if k != "plan_package"
            }
            view["last_success_materialization"] = materialized
        return view

    async def require_draft(self, plan_id: str) -> PlanDraft:
        draft = await self.store.get_draft(plan_id.strip())
        if draft is None:
            raise PlanNotFound(f"workflow plan `{plan_id}` not found", planID=plan_id)
        return draft

    # ------------------------------------------------------------ drafting
    def context(self, request: PlanRequest) -> PlanContext:
        from .plans import PlanContext
        from .schedule import normalize_schedule

        if not request.prompt.strip():
            raise PlanInvalid("`prompt` is required", field="prompt")
        workspace = absolute_workspace(request.workspace_root, self.engine.workspace)
        schedule = normalize_schedule(request.schedule) if request.schedule is not None else None
        return PlanContext(
            plan_id=f"wfplan-{uuid.uuid4()}",
            prompt=request.prompt.strip(),
            workspace_root=workspace,
            plan_source=(request.plan_source or "unknown").strip() or "unknown",
            schedule=schedule,
            allowed_mcp_servers=tuple(s.strip() for s in request.allowed_mcp_servers if s.strip()),
            operator_preferences=request.operator_preferences,
            max_steps=self.engine.settings.workflow_planner_max_steps,
        )

    async def _draft(self, request: PlanRequest) -> tuple[PlanDraft, Any]:
        ctx = self.context(request)
        progress = (request.progress_id or "").strip() or None
        if progress is not None:
            self.publish(
                "workflow.plan.progress", progressID=progress, planID=ctx.plan_id, phase="drafting"
            )
        result = await self.planner.draft(ctx)
        if progress is not None:
            self.publish(
                "workflow.plan.progress",
                progressID=progress,
                planID=ctx.plan_id,
                phase="drafted",
                fallbackReason=result.diagnostics.get("fallback_reason"),
            )
        now = self.now()
        messages = [ChatMessage("user", ctx.prompt, now)]
        if result.assistant_text:
            messages.append(ChatMessage("assistant", result.assistant_text, now))
        diagnostics = (
            {**result.diagnostics, "progress_id": request.progress_id}
            if request.progress_id
            else dict(result.diagnostics)
        )
        draft = PlanDraft(
            plan_id=ctx.plan_id,
            initial_plan=result.plan,
            current_plan=result.plan,
            conversation_id=f"wfchat-{uuid.uuid4()}",
            created_at_ms=now,
            updated_at_ms=now,
            plan_revision=1,
            messages=tuple(messages),
            planner_diagnostics=diagnostics,
        )
        await self.store.save_draft(draft)
        self.publish(
            "workflow.plan.drafted",
            planID=draft.plan_id,
            planRevision=1,
            stepCount=len(result.plan.steps),
            fallbackReason=diagnostics.get("fallback_reason"),
            planSource=ctx.plan_source,
        )
        return draft, result

    async def preview(self, request: PlanRequest) -> dict[str, Any]:
        draft, result = await self._draft(request)
        return {
            **await self.view(draft),
            "clarifier": result.clarifier,
            "assistant_message": _assistant(result.assistant_text),
        }

    async def chat_start(self, request: PlanRequest) -> dict[str, Any]:
        draft, result = await self._draft(request)
        return {
            **await self.view(draft, conversation=True),
            "clarifier": result.clarifier,
            "assistant_message": _assistant(result.assistant_text),
        }

    async def get(self, plan_id: str) -> dict[str, Any]:
        return await self.view(await self.require_draft(plan_id), replay=True, conversation=True)

    async def chat_message(self, plan_id: str, message: str) -> dict[str, Any]:
        if not plan_id.strip():
            raise PlanInvalid("`plan_id` is required", field="plan_id")
        if not message.strip():
            raise PlanInvalid("`message` is required", field="message")
        async with self._lock(plan_id.strip()):
            draft = await self.require_draft(plan_id)
            history = [m.to_wire() for m in draft.messages]
            result = await self.planner.revise(
                draft.current_plan,
                history,
                message.strip(),
                max_steps=max(
                    self.engine.settings.workflow_planner_max_steps, len(draft.current_plan.steps)
                ),
            )
            now = self.now()
            messages = (
                *draft.messages,
                ChatMessage("user", message.strip(), now),
                ChatMessage("assistant", result.assistant_text, now),
            )
            changes: dict[str, Any] = {
                "messages": messages,
                "updated_at_ms": now,
                "planner_diagnostics": dict(result.diagnostics),
            }
            if result.plan is not None:
                changes.update(current_plan=result.plan, plan_revision=draft.plan_revision + 1)
            draft = attrs.evolve(draft, **changes)
            await self.store.save_draft(draft)
        self.publish(
            "workflow.plan.revised",
            planID=draft.plan_id,
            planRevision=draft.plan_revision,
            changed=result.plan is not None,
            changeCount=len(result.change_summary),
        )
        return {
            **await self.view(draft, replay=True, conversation=True),
            "assistant_message": _assistant(result.assistant_text),
            "change_summary": list(result.change_summary),
            "clarifier": result.clarifier,
        }

    async def chat_reset(self, plan_id: str) -> dict[str, Any]:
        async with self._lock(plan_id.strip()):
            draft = await self.require_draft(plan_id)
            now = self.now()
            draft = attrs.evolve(
                draft,
                current_plan=draft.initial_plan,
                plan_revision=1,
                updated_at_ms=now,
                messages=(
                    *draft.messages,
                    ChatMessage("system", "Plan reset to the first draft.", now),
                ),
            )
            await self.store.save_draft(draft)
        self.publish("workflow.plan.reset", planID=draft.plan_id)
        return await self.view(draft, replay=True, conversation=True)

    # ------------------------------------------------------------ apply
    async def apply(
        self, request: ApplyRequest, *, agent_id: str | None, request_source: str | None
    ) -> dict[str, Any]:
        from .overlap import OVERLAP_DECISIONS

        key = (request.idempotency_key or "").strip() or None
        if key is not None and len(key) > MAX_IDEMPOTENCY_KEY:
            raise PlanInvalid(
                f"`idempotency_key` may hold at most {MAX_IDEMPOTENCY_KEY} characters",
                field="idempotency_key",
            )
        if (
            request.overlap_decision is not None
            and request.overlap_decision not in OVERLAP_DECISIONS
        ):
            raise PlanInvalid(
                f"`overlap_decision` must be one of {', '.join(OVERLAP_DECISIONS)}",
                field="overlap_decision",
            )
        draft = await self._draft_for_apply(request)
        async with self._lock(draft.plan_id):
            if key is not None:
                previous = await self.store.get_apply(key)
                if previous is not None:
                    if previous[0] != draft.plan_id:
                        raise Conflict(
                            "this idempotency key was used to apply another plan",
                            code="WORKFLOW_PLAN_IDEMPOTENCY_CONFLICT",
                            planID=previous[0],
                        )
                    return {**previous[1], "replayed": True}
            return await self._apply(
                draft, request, key=key, agent_id=agent_id, request_source=request_source
            )

    async def _draft_for_apply(self, request: ApplyRequest) -> PlanDraft:
        from .plans import PlanContext, normalize_plan, parse_plan_body

        if request.plan_id is not None and request.plan_id.strip():
            return await self.require_draft(request.plan_id)
        if request.plan is None:
            raise PlanInvalid("`plan_id` or `plan` is required", field="plan_id")
        body = parse_plan_body(request.plan)
        existing = await self.store.get_draft(body.plan_id) if body.plan_id else None
        ctx = PlanContext(
            plan_id=body.plan_id or f"wfplan-{uuid.uuid4()}",
            prompt=body.original_prompt or body.title or "",
            workspace_root=absolute_workspace(body.workspace_root, self.engine.workspace),
            plan_source=body.plan_source or "apply_request",
            max_steps=max(self.engine.settings.workflow_planner_max_steps, len(body.steps)),
            confidence=body.confidence or "medium",
        )
        plan = normalize_plan(body, ctx)
        now = self.now()
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
        await self.store.save_draft(draft)
        return draft

    async def _apply(
        self,
        draft: PlanDraft,
        request: ApplyRequest,
        *,
        key: str | None,
        agent_id: str | None,
        request_source: str | None,
    ) -> dict[str, Any]:
        from .materialize import plan_to_automation
        from .overlap import analyze_overlap
        from .plan_package import export_bundle, validate_package
        from .schedule import is_manual
        from .studio import migrate_studio_workflow

        package = self.package_of(draft)
        validation = validate_package(package)
        if not validation["ready_for_apply"]:
            raise PlanInvalid(
                "the plan cannot be applied: its package has blocking issues",
                field="plan",
                plan_package_validation=validation,
            )
        overlap = analyze_overlap(package, await self.store.applied_packages())
        if overlap["requires_user_confirmation"] and request.overlap_decision is None:
            raise Conflict(
                "this plan overlaps an applied plan; repeat the apply with an `overlap_decision`",
                code="WORKFLOW_PLAN_OVERLAP_CONFIRMATION_REQUIRED",
                overlap_analysis=overlap,
            )
        automations = self.engine.automations
        if automations is None or not hasattr(automations, "create_v2"):
            raise AutomationsUnavailable(
                "plans are applied as automations v2, which this engine does not run"
            )
        session = await self.store.get_session(draft.session_id) if draft.session_id else None
        schedule, schedule_source = dict(draft.current_plan.schedule), "plan"
        if is_manual(schedule) and session is not None and session.staged_schedule:
            schedule, schedule_source = dict(session.staged_schedule), "staged_import"
        decision = request.overlap_decision or overlap["decision"]
        automation = None
        if decision == "reuse" and overlap["matched_plan_id"]:
            automation = await self._reused_automation(overlap["matched_plan_id"])
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
        now = self.now()
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
        await self.store.save_draft(draft)
        if session is not None:
            await self.store.save_session(
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
            await self.store.save_apply(
                key,
                plan_id=draft.plan_id,
                automation_id=automation.automation_id,
                response=response,
                now_ms=now,
            )
        self.publish(
            "workflow.plan.applied",
            planID=draft.plan_id,
            planRevision=draft.plan_revision,
            automationID=automation.automation_id,
            created=created,
            scheduleSource=schedule_source,
        )
        return response

    async def _reused_automation(self, plan_id: str) -> Any:
        draft = await self.store.get_draft(plan_id)
        materialized = draft.last_success_materialization if draft else None
        if not materialized:
            return None
        return await self.engine.automations.get_v2(materialized["automation_id"])

    # ------------------------------------------------------------ import
    def _import_check(self, request: ImportRequest) -> tuple[dict[str, Any], str]:
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
        return report, absolute_workspace(request.workspace_root, self.engine.workspace)

    def _import_view(
        self, request: ImportRequest, report: dict[str, Any], workspace: str
    ) -> tuple[dict[str, Any], WorkflowPlan, Any]:
        from .plan_import import import_summary, plan_from_import, preview_import
        from .plan_package import validate_package
        from .plans import clip

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

    async def import_preview(self, request: ImportRequest) -> dict[str, Any]:
        report, workspace = self._import_check(request)
        view, _plan, _preview = self._import_view(request, report, workspace)
        return view

    async def import_bundle(self, request: ImportRequest) -> dict[str, Any]:
        """Persist the import as a planner session holding a draft; nothing becomes runnable."""
        report, workspace = self._import_check(request)
        view, plan, preview = self._import_view(request, report, workspace)
        existing = await self.store.session_for_bundle(preview.source_bundle_digest, workspace)
        if existing is not None:
            draft = (
                await self.store.get_draft(existing.current_plan_id)
                if existing.current_plan_id
                else None
            )
            return {**view, "persisted": True, "existing": True, "session": existing.to_wire(draft)}
        now = self.now()
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
        await self.store.save_draft(draft)
        await self.store.save_session(session)
        self.publish(
            "workflow.plan.imported",
            planID=plan.plan_id,
            plannerSessionID=session_id,
            sourceBundleDigest=preview.source_bundle_digest,
            stagedSchedule=preview.staged_schedule["type"],
        )
        return {**view, "persisted": True, "existing": False, "session": session.to_wire(draft)}

    # ------------------------------------------------------------ sessions
    async def sessions(self, *, project_slug: str | None = None) -> list[PlannerSession]:
        return await self.store.list_sessions(project_slug=project_slug)

    async def session(self, session_id: str) -> dict[str, Any]:
        session = await self.store.get_session(session_id)
        if session is None:
            raise PlannerSessionNotFound(
                f"planner session `{session_id}` not found", sessionID=session_id
            )
        draft = (
            await self.store.get_draft(session.current_plan_id) if session.current_plan_id else None
        )
        return session.to_wire(draft)


def _assistant(text: str | None) -> dict[str, str] | None:
    return {"role": "assistant", "text": text} if text else None


__all__ = [
    "ApplyRequest",
    "ChatMessageRequest",
    "ImportRequest",
    "PlanIdRequest",
    "PlanRequest",
    "PlannerService",
]
