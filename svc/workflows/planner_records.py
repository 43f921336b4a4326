"""Records of the planner: drafts, their chat, and planner sessions.

A *draft* is a plan under discussion: its first and current versions, its
revision number and the chat about it. A *planner session* is the workspace
object an import creates (and that names the draft it holds); nothing in a
session is runnable until its plan is applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from .plans import WorkflowPlan

# The plan model is imported where a stored draft is read: start-up reads none
# (docs/architecture.md, "Start-up budget").


@attrs.frozen
class ChatMessage:
    role: str
    text: str
    created_at_ms: int

    def to_wire(self) -> dict[str, Any]:
        return {"role": self.role, "text": self.text, "created_at_ms": self.created_at_ms}


@attrs.frozen
class PlanDraft:
    plan_id: str
    initial_plan: WorkflowPlan
    current_plan: WorkflowPlan
    conversation_id: str
    created_at_ms: int
    updated_at_ms: int
    plan_revision: int = 1
    messages: tuple[ChatMessage, ...] = ()
    planner_diagnostics: Mapping[str, Any] | None = None
    last_success_materialization: Mapping[str, Any] | None = None
    session_id: str | None = None

    def conversation(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "plan_id": self.plan_id,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "messages": [m.to_wire() for m in self.messages],
        }

    def to_wire(self) -> dict[str, Any]:
        return {
            "initial_plan": self.initial_plan.to_wire(),
            "current_plan": self.current_plan.to_wire(),
            "plan_revision": self.plan_revision,
            "conversation": self.conversation(),
            "planner_diagnostics": dict(self.planner_diagnostics)
            if self.planner_diagnostics
            else None,
            "last_success_materialization": dict(self.last_success_materialization)
            if self.last_success_materialization
            else None,
        }

    def to_doc(self) -> dict[str, Any]:
        return {
            **self.to_wire(),
            "plan_id": self.plan_id,
            "session_id": self.session_id,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
        }

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> PlanDraft:
        from .plans import plan_from_wire

        conversation = doc["conversation"]
        return cls(
            plan_id=doc["plan_id"],
            initial_plan=plan_from_wire(doc["initial_plan"]),
            current_plan=plan_from_wire(doc["current_plan"]),
            conversation_id=conversation["conversation_id"],
            created_at_ms=doc["created_at_ms"],
            updated_at_ms=doc["updated_at_ms"],
            plan_revision=doc.get("plan_revision", 1),
            messages=tuple(
                ChatMessage(m["role"], m["text"], m["created_at_ms"])
                for m in conversation.get("messages", ())
            ),
            planner_diagnostics=doc.get("planner_diagnostics"),
            last_success_materialization=doc.get("last_success_materialization"),
            session_id=doc.get("session_id"),
        )


@attrs.frozen
class PlannerSession:
    session_id: str
    project_slug: str
    title: str
    workspace_root: str
    source_kind: str
    created_at_ms: int
    updated_at_ms: int
    current_plan_id: str | None = None
    goal: str = ""
    source_bundle_digest: str | None = None
    plan_source: str = ""
    staged_schedule: Mapping[str, Any] | None = None
    """A schedule imported with a bundle: it takes effect only when the plan is applied."""
    import_validation: Mapping[str, Any] | None = None
    import_transform_log: tuple[Mapping[str, Any], ...] = ()
    import_scope_snapshot: Mapping[str, Any] | None = None
    creator_id: str | None = None
    published_at_ms: int | None = None
    published_automation_id: str | None = None

    def to_wire(self, draft: PlanDraft | None = None) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "session_id": self.session_id,
            "project_slug": self.project_slug,
            "title": self.title,
            "workspace_root": self.workspace_root,
            "source_kind": self.source_kind,
            "source_bundle_digest": self.source_bundle_digest,
            "current_plan_id": self.current_plan_id,
            "goal": self.goal,
            "plan_source": self.plan_source,
            "staged_schedule": dict(self.staged_schedule) if self.staged_schedule else None,
            "schedule_state": "staged"
            if self.staged_schedule and self.published_at_ms is None
            else ("applied" if self.published_at_ms is not None else "none"),
            "import_validation": dict(self.import_validation) if self.import_validation else None,
            "import_transform_log": [dict(e) for e in self.import_transform_log],
            "import_scope_snapshot": dict(self.import_scope_snapshot)
            if self.import_scope_snapshot
            else None,
            "creator_id": self.creator_id,
            "published_at_ms": self.published_at_ms,
            "published_automation_id": self.published_automation_id,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
        }
        if draft is not None:
            wire["draft"] = draft.to_wire()
        return wire

    def to_doc(self) -> dict[str, Any]:
        doc = self.to_wire()
        doc.pop("schedule_state")
        return doc

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> PlannerSession:
        fields = {f.name for f in attrs.fields(cls)}
        values = {k: v for k, v in doc.items() if k in fields}
        # Sessions stored before log entries were objects hold sentences.
        values["import_transform_log"] = tuple(
            dict(e) if isinstance(e, Mapping) else {"kind": "note", "message": str(e)}
            for e in values.get("import_transform_log") or ()
        )
        return cls(**values)


__all__ = ["ChatMessage", "PlanDraft", "PlannerSession"]
