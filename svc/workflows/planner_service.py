"""The planner facade: drafts, chat revisions, apply, import, planner sessions.

Every response about a draft has the same core (:meth:`PlannerService.view`):
the plan, its compiled package and bundle, the package validation, the overlap
analysis against plans already applied, and the planner diagnostics.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from actors import SerialByKey

from .errors import PlanInvalid, PlannerSessionNotFound, PlanNotFound
from .planner import Planner
from .planner_records import ChatMessage, PlanDraft, PlannerSession
from .planner_repository import PlannerRepository
from .planner_requests import ApplyRequest, ImportRequest, PlanRequest, absolute_workspace
from .run_events import TOPIC

if TYPE_CHECKING:
    from ..engine import Engine
    from .plan_normalization import PlanContext

# The plan model, packages, overlap analysis, imports and materialization are imported on
# first use: start-up builds the planner service but never plans, applies or imports
# (docs/architecture.md, "Start-up budget").


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


class PlannerService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.repo = PlannerRepository(engine.store)
        self.planner = Planner(engine)
        # A plan's read-modify-write (a chat revision, a reset, an apply) runs in its turn.
        self.serial = SerialByKey()

    def now(self) -> int:
        return self.engine.clock.now_ms()

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
        from .plan_package import compile_package, export_bundle
        from .plan_package_replay import compare_replay
        from .plan_package_validation import validate_package

        package = self.package_of(draft)
        view: dict[str, Any] = {
            "plan": draft.current_plan.to_wire(),
            "plan_revision": draft.plan_revision,
            "plan_package": package,
            "plan_package_bundle": export_bundle(package),
            "plan_package_validation": validate_package(package),
            "overlap_analysis": analyze_overlap(package, await self.repo.applied_packages()),
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
        draft = await self.repo.get_draft(plan_id.strip())
        if draft is None:
            raise PlanNotFound(f"workflow plan `{plan_id}` not found", planID=plan_id)
        return draft

    # ------------------------------------------------------------ drafting
    def context(self, request: PlanRequest) -> PlanContext:
        from .plan_normalization import PlanContext
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
        await self.repo.save_draft(draft)
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
        async with self.serial.turn(plan_id.strip()):
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
            await self.repo.save_draft(draft)
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
        async with self.serial.turn(plan_id.strip()):
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
            await self.repo.save_draft(draft)
        self.publish("workflow.plan.reset", planID=draft.plan_id)
        return await self.view(draft, replay=True, conversation=True)

    # ------------------------------------------------------------ apply
    async def apply(
        self, request: ApplyRequest, *, agent_id: str | None, request_source: str | None
    ) -> dict[str, Any]:
        from .plan_apply import apply_plan

        return await apply_plan(self, request, agent_id=agent_id, request_source=request_source)

    # ------------------------------------------------------------ import
    async def import_preview(self, request: ImportRequest) -> dict[str, Any]:
        from .planner_import import import_preview

        return await import_preview(self, request)

    async def import_bundle(self, request: ImportRequest) -> dict[str, Any]:
        """Persist the import as a planner session holding a draft; nothing becomes runnable."""
        from .planner_import import import_bundle

        return await import_bundle(self, request)

    # ------------------------------------------------------------ sessions
    async def sessions(self, *, project_slug: str | None = None) -> list[PlannerSession]:
        return await self.repo.list_sessions(project_slug=project_slug)

    async def session(self, session_id: str) -> dict[str, Any]:
        session = await self.repo.get_session(session_id)
        if session is None:
            raise PlannerSessionNotFound(
                f"planner session `{session_id}` not found", sessionID=session_id
            )
        draft = (
            await self.repo.get_draft(session.current_plan_id) if session.current_plan_id else None
        )
        return session.to_wire(draft)


def _assistant(text: str | None) -> dict[str, str] | None:
    return {"role": "assistant", "text": text} if text else None


__all__ = ["PlannerService"]
