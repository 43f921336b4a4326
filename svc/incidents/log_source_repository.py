"""Per log source tail state (offset, inode, partial line, cooldowns), one row each."""

from __future__ import annotations

from ..convert import structure, unstructure
from ..store import Store, Tx, dumps, loads
from .records import LogSourceState


def _get(tx: Tx, project_id: str, source_id: str) -> LogSourceState | None:
    raw = tx.execute(
        "SELECT state FROM incident_log_sources WHERE project_id = ? AND source_id = ?",
        (project_id, source_id),
    ).scalar()
    return structure(LogSourceState, loads(raw)) if raw is not None else None


def _save(tx: Tx, state: LogSourceState) -> None:
    tx.execute(
        "INSERT INTO incident_log_sources(project_id, source_id, state, updated_at_ms) "
        "VALUES (?,?,?,?) ON CONFLICT (project_id, source_id) DO UPDATE SET "
        "state = excluded.state, updated_at_ms = excluded.updated_at_ms",
        (state.project_id, state.source_id, dumps(unstructure(state)), state.updated_at_ms),
    )


def _all(tx: Tx) -> list[LogSourceState]:
    rows = tx.execute("SELECT state FROM incident_log_sources ORDER BY project_id, source_id")
    return [structure(LogSourceState, loads(r[0])) for r in rows]


class LogSourceRepository:
    def __init__(self, store: Store) -> None:
        self._db = store

    async def get(self, project_id: str, source_id: str) -> LogSourceState | None:
        return await self._db.read(_get, project_id, source_id)

    async def save(self, state: LogSourceState) -> None:
        await self._db.write(_save, state)

    async def all_states(self) -> list[LogSourceState]:
        return await self._db.read(_all)
