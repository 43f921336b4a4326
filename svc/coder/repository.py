"""The coder tables: one binding per project, and coder runs (SQL in the shared subset)."""

from __future__ import annotations

from ..convert import converter
from ..store import Store, Tx, dumps, loads
from .records import CoderBinding, CoderRun


class CoderBindingRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def get(self, project_id: str) -> CoderBinding | None:
        def q(tx: Tx) -> CoderBinding | None:
            row = tx.execute(
                "SELECT body FROM coder_bindings WHERE project_id = ?", (project_id,)
            ).fetchone()
            return converter.structure(loads(row[0]), CoderBinding) if row else None

        return await self._db.read(q)

    async def put(self, binding: CoderBinding) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO coder_bindings(project_id, body, updated_at_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (project_id) DO UPDATE SET body = excluded.body, "
                "updated_at_ms = excluded.updated_at_ms",
                (binding.project_id, dumps(converter.unstructure(binding)), binding.updated_at_ms),
            )

        await self._db.write(q)


class CoderRunRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def put(self, run: CoderRun) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO coder_runs(id, project_id, project_item_id, status, body, "
                "created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body, "
                "updated_at_ms = excluded.updated_at_ms",
                (
                    run.coder_run_id,
                    run.project_id,
                    run.project_item_id,
                    run.status,
                    dumps(converter.unstructure(run)),
                    run.created_at_ms,
                    run.updated_at_ms,
                ),
            )

        await self._db.write(q)

    async def get(self, coder_run_id: str) -> CoderRun | None:
        def q(tx: Tx) -> CoderRun | None:
            row = tx.execute("SELECT body FROM coder_runs WHERE id = ?", (coder_run_id,)).fetchone()
            return converter.structure(loads(row[0]), CoderRun) if row else None

        return await self._db.read(q)

    async def of_project(self, project_id: str) -> list[CoderRun]:
        """The project's coder runs, oldest first."""

        def q(tx: Tx) -> list[CoderRun]:
            rows = tx.execute(
                "SELECT body FROM coder_runs WHERE project_id = ? ORDER BY created_at_ms, id",
                (project_id,),
            )
            return [converter.structure(loads(body), CoderRun) for (body,) in rows]

        return await self._db.read(q)

    async def active(self) -> list[CoderRun]:
        """Runs not yet ended (the step followers to resume after a restart)."""

        def q(tx: Tx) -> list[CoderRun]:
            rows = tx.execute(
                "SELECT body FROM coder_runs WHERE status IN ('queued', 'running') "
                "ORDER BY created_at_ms, id"
            )
            return [converter.structure(loads(body), CoderRun) for (body,) in rows]

        return await self._db.read(q)

    async def recent(self, limit: int) -> list[CoderRun]:
        """The newest runs first."""

        def q(tx: Tx) -> list[CoderRun]:
            rows = tx.execute(
                "SELECT body FROM coder_runs ORDER BY created_at_ms DESC, id DESC LIMIT ?",
                (limit,),
            )
            return [converter.structure(loads(body), CoderRun) for (body,) in rows]

        return await self._db.read(q)


__all__ = ["CoderBindingRepository", "CoderRunRepository"]
