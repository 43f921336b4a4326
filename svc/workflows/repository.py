"""Workflow runs, hook overrides and shared resources in SQLite."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..store import Store, Tx, dumps, loads

if TYPE_CHECKING:
    from .runs import WorkflowRun

# The run records are imported where rows become runs (_run): a fresh store has none to
# read at start-up (docs/architecture.md, "Start-up budget").


@attrs.frozen
class Resource:
    key: str
    value: Any
    rev: int
    updated_at_ms: int
    updated_by: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "value": self.value,
            "rev": self.rev,
            "updated_at_ms": self.updated_at_ms,
            "updated_by": self.updated_by,
        }


def _run(doc: str) -> WorkflowRun:
    from .runs import WorkflowRun

    return WorkflowRun.from_doc(loads(doc))


class WorkflowRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    # ------------------------------------------------------------ runs
    async def save_run(self, run: WorkflowRun) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO workflow_runs(run_id, workflow_id, status, workspace_root, "
                "created_at_ms, updated_at_ms,"
                " doc) VALUES (?,?,?,?,?,?,?) ON CONFLICT(run_id) DO UPDATE SET status = "
                "excluded.status,"
                " updated_at_ms = excluded.updated_at_ms, doc = excluded.doc",
                (
                    run.run_id,
                    run.workflow_id,
                    run.status,
                    run.workspace_root,
                    run.created_at_ms,
                    run.updated_at_ms,
                    dumps(run.to_doc()),
                ),
            )

        await self._db.write(q)

    async def replace_run_if(
        self, run: WorkflowRun, *, status: str, nonce: str | None = None
    ) -> bool:
        """Save ``run`` only if the stored run still has ``status`` (and, if given, its gate
        ``nonce``).

        The compare-and-set that makes a gate decision happen exactly once.
        """

        def q(tx: Tx) -> bool:
            row = tx.execute(
                "SELECT status, doc FROM workflow_runs WHERE run_id = ?", (run.run_id,)
            ).fetchone()
            if row is None or row[0] != status:
                return False
            if nonce is not None:
                gate = (loads(row[1], {}) or {}).get("awaiting_gate") or {}
                if gate.get("nonce") != nonce:
                    return False
            tx.execute(
                "UPDATE workflow_runs SET status = ?, updated_at_ms = ?, doc = ? WHERE run_id = ?",
                (run.status, run.updated_at_ms, dumps(run.to_doc()), run.run_id),
            )
            return True

        return await self._db.write(q)

    async def get_run(self, run_id: str) -> WorkflowRun | None:
        def q(tx: Tx) -> str | None:
            row = tx.execute("SELECT doc FROM workflow_runs WHERE run_id = ?", (run_id,)).fetchone()
            return row[0] if row else None

        doc = await self._db.read(q)
        return _run(doc) if doc else None

    async def list_runs(
        self, *, workflow_id: str | None = None, status: str | None = None, limit: int = 50
    ) -> list[WorkflowRun]:
        def q(tx: Tx) -> list[str]:
            where, params = [], []
            if workflow_id is not None:
                where.append("workflow_id = ?")
                params.append(workflow_id)
            if status is not None:
                where.append("status = ?")
                params.append(status)
            sql = "SELECT doc FROM workflow_runs"
            if where:
                sql += " WHERE " + " AND ".join(where)
            sql += " ORDER BY created_at_ms DESC, run_id DESC LIMIT ?"
            return [row[0] for row in tx.execute(sql, (*params, limit))]

        return [_run(doc) for doc in await self._db.read(q)]

    async def run_workspaces(self, run_ids: list[str]) -> dict[str, str | None]:
        """``run_id -> workspace_root`` for the workflow runs among ``run_ids``."""

        def q(tx: Tx) -> dict[str, str | None]:
            found: dict[str, str | None] = {}
            for run_id in run_ids:
                row = tx.execute(
                    "SELECT workspace_root FROM workflow_runs WHERE run_id = ?", (run_id,)
                ).fetchone()
                if row is not None:
                    found[run_id] = row[0]
            return found

        return await self._db.read(q)

    async def runs_in_workspace(self, workspace_root: str, *, limit: int) -> list[str]:
        def q(tx: Tx) -> list[str]:
            return [
                row[0]
                for row in tx.execute(
                    "SELECT run_id FROM workflow_runs WHERE workspace_root = ? ORDER BY "
                    "created_at_ms DESC LIMIT ?",
                    (workspace_root, limit),
                )
            ]

        return await self._db.read(q)

    # ------------------------------------------------------------ hook overrides
    async def hook_overrides(self) -> dict[str, bool]:
        def q(tx: Tx) -> dict[str, bool]:
            return {
                row[0]: bool(row[1])
                for row in tx.execute("SELECT binding_id, enabled FROM workflow_hook_overrides")
            }

        return await self._db.read(q)

    async def set_hook_override(self, binding_id: str, enabled: bool, *, now_ms: int) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO workflow_hook_overrides(binding_id, enabled, updated_at_ms) VALUES "
                "(?,?,?)"
                " ON CONFLICT(binding_id) DO UPDATE SET enabled = excluded.enabled,"
                " updated_at_ms = excluded.updated_at_ms",
                (binding_id, int(enabled), now_ms),
            )

        await self._db.write(q)

    # ------------------------------------------------------------ shared resources
    async def get_resource(self, key: str) -> Resource | None:
        def q(tx: Tx) -> Resource | None:
            row = tx.execute(
                "SELECT key, value, rev, updated_at_ms, updated_by FROM workflow_resources"
                " WHERE key = ?",
                (key,),
            ).fetchone()
            return Resource(row[0], loads(row[1]), row[2], row[3], row[4]) if row else None

        return await self._db.read(q)

    async def put_resource(
        self, key: str, value: Any, *, merge: bool, now_ms: int, by: str | None
    ) -> Resource:
        """Store ``value`` (or shallow-merge an object into the stored object); the revision goes up
        by one."""

        def q(tx: Tx) -> Resource:
            row = tx.execute(
                "SELECT value, rev FROM workflow_resources WHERE key = ?", (key,)
            ).fetchone()
            current = loads(row[0]) if row else None
            rev = (row[1] if row else 0) + 1
            new = value
            if merge and isinstance(current, Mapping) and isinstance(value, Mapping):
                new = {**current, **value}
            tx.execute(
                "INSERT INTO workflow_resources(key, value, rev, updated_by, updated_at_ms) "
                "VALUES (?,?,?,?,?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value, rev = excluded.rev,"
                " updated_by = excluded.updated_by, updated_at_ms = excluded.updated_at_ms",
                (key, dumps(new), rev, by, now_ms),
            )
            return Resource(key, new, rev, now_ms, by)

        return await self._db.write(q)

    async def delete_resource(self, key: str) -> bool:
        def q(tx: Tx) -> bool:
            tx.execute("DELETE FROM workflow_resources WHERE key = ?", (key,))
            return tx.changes() > 0

        return await self._db.write(q)


__all__ = ["Resource", "WorkflowRepository"]
