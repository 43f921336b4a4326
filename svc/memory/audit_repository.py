"""The memory audit trail: who did what to which record, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import Store, Tx, dumps, loads

# The record shapes are imported by the first audit entry read or written
# (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .records import AuditEntry

_INSERT = (
    "INSERT INTO memory_audit(id, action, record_id, run_id, tier, actor, detail, created_at_ms) "
    "VALUES (?,?,?,?,?,?,?,?)"
)
_SELECT = (
    "SELECT id, action, record_id, run_id, tier, actor, detail, created_at_ms FROM memory_audit"
)


def append_audit(tx: Tx, entry: AuditEntry) -> None:
    """Record ``entry`` in the transaction of the change it describes."""
    tx.execute(
        _INSERT,
        (
            entry.id,
            entry.action,
            entry.record_id,
            entry.run_id,
            entry.tier,
            entry.actor,
            dumps(dict(entry.detail)),
            entry.created_at_ms,
        ),
    )


def _entries(tx: Tx, run_id: str | None, limit: int) -> list[AuditEntry]:
    from .records import AuditEntry

    where, params = ("WHERE run_id = ?", [run_id]) if run_id else ("", [])
    rows = tx.execute(f"{_SELECT} {where} ORDER BY seq DESC LIMIT ?", (*params, limit))
    return [
        AuditEntry(
            id=r[0],
            action=r[1],
            record_id=r[2],
            run_id=r[3],
            tier=r[4],
            actor=r[5],
            detail=loads(r[6], {}),
            created_at_ms=r[7],
        )
        for r in rows
    ]


class AuditRepository:
    """The ``memory_audit`` table."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def append(self, entry: AuditEntry) -> None:
        """Record an entry that goes with no record change (a search, a refusal, an import)."""
        await self._db.write(append_audit, entry)

    async def entries(self, *, run_id: str | None = None, limit: int = 100) -> list[AuditEntry]:
        """Newest first; only ``run_id``'s when given."""
        return await self._db.read(_entries, run_id, limit)


__all__ = ["AuditRepository", "append_audit"]
