"""Planner drafts, planner sessions and plan applies in the store.

Records are in :mod:`.planner_records`. An *apply* record remembers the result of an
apply under its idempotency key (the first apply of a key wins).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..store import Store, Tx, dumps, loads
from .planner_records import PlanDraft, PlannerSession

# The plan model is imported where a stored draft is read (PlanDraft.from_doc): start-up
# reads none (docs/architecture.md, "Start-up budget").


class PlannerRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    # ------------------------------------------------------------ drafts
    async def save_draft(self, draft: PlanDraft) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO workflow_plan_drafts(plan_id, session_id, doc, created_at_ms,"
                " updated_at_ms) VALUES (?,?,?,?,?) ON CONFLICT(plan_id) DO UPDATE SET"
                " session_id = excluded.session_id, doc = excluded.doc,"
                " updated_at_ms = excluded.updated_at_ms",
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
            materialized = tx.dialect.json_text("doc", "last_success_materialization")
            return [
                row[0]
                for row in tx.execute(
                    f"SELECT doc FROM workflow_plan_drafts WHERE {materialized} IS NOT NULL"
                    " ORDER BY updated_at_ms DESC LIMIT ?",
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
                "INSERT INTO workflow_planner_sessions(session_id, project_slug, workspace_root,"
                " source_bundle_digest, current_plan_id, doc, created_at_ms, updated_at_ms)"
                " VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(session_id) DO UPDATE SET"
                " project_slug = excluded.project_slug, workspace_root = excluded.workspace_root,"
                " current_plan_id = excluded.current_plan_id, doc = excluded.doc,"
                " updated_at_ms = excluded.updated_at_ms",
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
                "INSERT INTO workflow_plan_applies(idempotency_key, plan_id, automation_id,"
                " response, created_at_ms) VALUES (?,?,?,?,?)"
                " ON CONFLICT(idempotency_key) DO NOTHING",
                (key, plan_id, automation_id, dumps(dict(response)), now_ms),
            )

        await self._db.write(q)


__all__ = ["PlannerRepository"]
