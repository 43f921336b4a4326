"""Claims on automation v2 runs (columns ``claimed_by``, ``claim_expires_at_ms``; migration 025).

Replicas sharing a store take queued runs with :func:`claim`: on PostgreSQL the
candidate rows are locked with ``FOR UPDATE SKIP LOCKED``, so two replicas
claiming at the same moment take different runs and neither waits for the
other; on SQLite (one writer) the same conditional ``UPDATE ... RETURNING``
runs without the lock clause. A claim lasts until ``claim_expires_at_ms``: the
claiming replica renews its claims while it runs them, and a run whose claim
expired (its replica died) is claimable again; a run found ``running`` that way
resumes from its completed nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store import Store, Tx
from .repository import run_from_record

if TYPE_CHECKING:
    from .records import AutomationV2Run

CLAIMABLE = ("queued", "running")
"""Statuses a replica executes; ``running`` is claimable only once its claim expired."""


def skip_locked(tx: Tx) -> str:
    # A dialect piece kept here (svc/store/dialect.py has none for row locks):
    # SQLite has one writer and no row locks, so the clause is PostgreSQL's alone.
    return " FOR UPDATE SKIP LOCKED" if tx.dialect.name == "postgresql" else ""


def _claim(
    tx: Tx, replica_id: str, now_ms: int, expires_at_ms: int, limit: int
) -> list[AutomationV2Run]:
    rows = tx.execute(
        "UPDATE automations_v2_runs SET claimed_by = ?, claim_expires_at_ms = ? "
        "WHERE run_id IN (SELECT run_id FROM automations_v2_runs "
        "WHERE status IN (?, ?) AND (claimed_by IS NULL OR claim_expires_at_ms < ?) "
        f"ORDER BY seq LIMIT ?{skip_locked(tx)}) "
        "RETURNING record",
        (replica_id, expires_at_ms, *CLAIMABLE, now_ms, limit),
    ).fetchall()
    runs = [run_from_record(record) for (record,) in rows]
    return sorted(runs, key=lambda r: r.created_at_ms)


class ClaimsRepository:
    def __init__(self, db: Store) -> None:
        self.db = db

    async def claim(
        self, replica_id: str, *, now_ms: int, lease_ms: int, limit: int
    ) -> list[AutomationV2Run]:
        """Up to ``limit`` runs nobody holds (oldest first), now held by ``replica_id``."""
        return await self.db.write(_claim, replica_id, now_ms, now_ms + lease_ms, limit)

    async def renew(self, replica_id: str, *, expires_at_ms: int) -> int:
        """Extend every claim ``replica_id`` holds; how many it holds."""

        def q(tx: Tx) -> int:
            tx.execute(
                "UPDATE automations_v2_runs SET claim_expires_at_ms = ? WHERE claimed_by = ?",
                (expires_at_ms, replica_id),
            )
            return tx.changes()

        return await self.db.write(q)

    async def release(self, replica_id: str, run_id: str) -> None:
        """The run left this replica (ended, or waits for approval): anyone may claim it next."""

        def q(tx: Tx) -> None:
            tx.execute(
                "UPDATE automations_v2_runs SET claimed_by = NULL, claim_expires_at_ms = NULL "
                "WHERE run_id = ? AND claimed_by = ?",
                (run_id, replica_id),
            )

        await self.db.write(q)

    async def claimed_by(self, run_id: str) -> str | None:
        """Who holds ``run_id`` (for tests and tools)."""

        def q(tx: Tx) -> str | None:
            return tx.execute(
                "SELECT claimed_by FROM automations_v2_runs WHERE run_id = ?", (run_id,)
            ).scalar()

        return await self.db.read(q)


__all__ = ["CLAIMABLE", "ClaimsRepository", "skip_locked"]
