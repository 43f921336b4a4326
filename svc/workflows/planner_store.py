"""Planner drafts, planner sessions and plan applies in SQLite.

A *draft* is a plan under discussion: its first and current versions, its
revision number and the chat about it. A *planner session* is the workspace
object an import creates (and that names the draft it holds); nothing in a
session is runnable until its plan is applied. An *apply* record remembers the
result of an apply under its idempotency key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..store import Store, Tx, dumps, loads

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
    import_transform_log: tuple[str, ...] = ()
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
            "import_transform_log": list(self.import_transform_log),
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
        values["import_transform_log"] = tuple(values.get("import_transform_log") or ())
        return cls(**values)


class PlannerStore:
    def __init__(self, db: Store) -> None:
        self._db = db

    # ------------------------------------------------------------ drafts
    async def save_draft(self, draft: PlanDraft) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO workflow_plan_drafts(plan_id, session_id, doc, created_at_ms, updated_at_ms)"
                " VALUES (?,?,?,?,?) ON CONFLICT(plan_id) DO UPDATE SET session_id = excluded.session_id,"
                " doc = excluded.doc, updated_at_ms = excluded.updated_at_ms",
                (
                    draft.plan_id,
                    draft.session_id,
                    dumps(draft.to_doc()),
                    draft.created_at_ms,
                    draft.updated_at_ms,
                ),
            )

        await self._db.write(q)

    async def get_draft(self, plan_id: str) -> PlanDraft | None:
        def q(tx: Tx) -> str | None:
            row = tx.execute(
                "SELECT doc FROM workflow_plan_drafts WHERE plan_id = ?", (plan_id,)
            ).fetchone()
            return row[0] if row else None

        doc = await self._db.read(q)
        return PlanDraft.from_doc(loads(doc)) if doc else None

    async def applied_packages(self, *, limit: int = 500) -> list[dict[str, Any]]:
        """The packages of plans that were applied (for overlap analysis), newest first."""

        def q(tx: Tx) -> list[str]:
            return [
                row[0]
                for row in tx.execute(
                    "SELECT doc FROM workflow_plan_drafts WHERE json_extract(doc, '$.last_success_materialization')"
                    " IS NOT NULL ORDER BY updated_at_ms DESC LIMIT ?",
                    (limit,),
                )
            ]

        packages = []
        for doc in await self._db.read(q):
            materialized = (loads(doc) or {}).get("last_success_materialization") or {}
            if isinstance(materialized.get("plan_package"), Mapping):
                packages.append(materialized["plan_package"])
        return packages

    # ------------------------------------------------------------ sessions
    async def save_session(self, session: PlannerSession) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO workflow_planner_sessions(session_id, project_slug, workspace_root, source_bundle_digest,"
                " current_plan_id, doc, created_at_ms, updated_at_ms) VALUES (?,?,?,?,?,?,?,?)"
                " ON CONFLICT(session_id) DO UPDATE SET project_slug = excluded.project_slug,"
                " workspace_root = excluded.workspace_root, current_plan_id = excluded.current_plan_id,"
                " doc = excluded.doc, updated_at_ms = excluded.updated_at_ms",
                (
                    session.session_id,
                    session.project_slug,
                    session.workspace_root,
                    session.source_bundle_digest,
                    session.current_plan_id,
                    dumps(session.to_doc()),
                    session.created_at_ms,
                    session.updated_at_ms,
                ),
            )

        await self._db.write(q)

    async def get_session(self, session_id: str) -> PlannerSession | None:
        def q(tx: Tx) -> str | None:
            row = tx.execute(
                "SELECT doc FROM workflow_planner_sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
            return row[0] if row else None

        doc = await self._db.read(q)
        return PlannerSession.from_doc(loads(doc)) if doc else None

    async def session_for_bundle(self, digest: str, workspace_root: str) -> PlannerSession | None:
        def q(tx: Tx) -> str | None:
            row = tx.execute(
                "SELECT doc FROM workflow_planner_sessions WHERE source_bundle_digest = ?"
                " AND workspace_root = ?",
                (digest, workspace_root),
            ).fetchone()
            return row[0] if row else None

        doc = await self._db.read(q)
        return PlannerSession.from_doc(loads(doc)) if doc else None

    async def list_sessions(
        self, *, project_slug: str | None = None, limit: int = 200
    ) -> list[PlannerSession]:
        def q(tx: Tx) -> list[str]:
            if project_slug is None:
                rows = tx.execute(
                    "SELECT doc FROM workflow_planner_sessions ORDER BY updated_at_ms DESC LIMIT ?",
                    (limit,),
                )
            else:
                rows = tx.execute(
                    "SELECT doc FROM workflow_planner_sessions WHERE project_slug = ?"
                    " ORDER BY updated_at_ms DESC LIMIT ?",
                    (project_slug, limit),
                )
            return [row[0] for row in rows]

        return [PlannerSession.from_doc(loads(doc)) for doc in await self._db.read(q)]

    # ------------------------------------------------------------ applies
    async def get_apply(self, key: str) -> tuple[str, dict[str, Any]] | None:
        def q(tx: Tx) -> tuple[str, str] | None:
            row = tx.execute(
                "SELECT plan_id, response FROM workflow_plan_applies WHERE idempotency_key = ?",
                (key,),
            ).fetchone()
            return (row[0], row[1]) if row else None

        found = await self._db.read(q)
        return (found[0], loads(found[1])) if found else None

    async def save_apply(
        self,
        key: str,
        *,
        plan_id: str,
        automation_id: str,
        response: Mapping[str, Any],
        now_ms: int,
    ) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT OR IGNORE INTO workflow_plan_applies(idempotency_key, plan_id, automation_id,"
                " response, created_at_ms) VALUES (?,?,?,?,?)",
                (key, plan_id, automation_id, dumps(dict(response)), now_ms),
            )

        await self._db.write(q)


__all__ = ["ChatMessage", "PlanDraft", "PlannerSession", "PlannerStore"]
