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

from ...store import Tx
from ..claim_lease_repository import ClaimLeases, skip_locked
from .repository import run_from_record

if TYPE_CHECKING:
    from .records import AutomationV2Run

CLAIMABLE = ("queued", "running")
"""Statuses a replica executes; ``running`` is claimable only once its claim expired."""


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


class ClaimsRepository(ClaimLeases):
    table = "automations_v2_runs"

    async def claim(
        self, replica_id: str, *, now_ms: int, lease_ms: int, limit: int
    ) -> list[AutomationV2Run]:
        """Up to ``limit`` runs nobody holds (oldest first), now held by ``replica_id``."""
        return await self.db.write(_claim, replica_id, now_ms, now_ms + lease_ms, limit)


__all__ = ["CLAIMABLE", "ClaimsRepository"]
