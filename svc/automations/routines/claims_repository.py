"""Claims on routine runs (columns ``claimed_by``, ``claim_expires_at_ms``; migration 029).

The automation v2 claims (:mod:`svc.automations.v2.claims_repository`) with one
more rule, the routine's lane: a run is claimable only if it is the oldest
claimable run of its routine and no other run of its routine is claimed (and
unexpired) anywhere, so one routine never has two runs executing at once, on
one replica or across replicas. On PostgreSQL the candidate rows are locked
with ``FOR UPDATE SKIP LOCKED`` (two replicas claiming at once take different
runs); on SQLite the same conditional ``UPDATE ... RETURNING`` runs without it.
A run found ``running`` with an expired (or released) claim was left by a
replica that stopped: whoever claims it ends it failed (a session run cannot
resume mid-turn), as one engine does with the runs its previous process left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store import Tx
from ..claim_lease_repository import ClaimLeases, skip_locked
from .repository import _RUN_COLS, _run

if TYPE_CHECKING:
    from .records import RoutineRun

CLAIMABLE = ("queued", "running")
"""Statuses a replica executes; ``running`` is claimable only once its claim expired."""

_CANDIDATES = (
    "SELECT r.run_id FROM automations_routine_runs r "
    "WHERE r.status IN (?, ?) AND (r.claimed_by IS NULL OR r.claim_expires_at_ms < ?) "
    # The routine's lane: no run of the routine held anywhere, none older waiting first
    # (so one statement takes at most one run of a routine).
    "AND NOT EXISTS (SELECT 1 FROM automations_routine_runs o "
    "WHERE o.routine_id = r.routine_id AND o.run_id <> r.run_id AND ("
    "(o.claimed_by IS NOT NULL AND o.claim_expires_at_ms >= ?) "
    "OR (o.status IN (?, ?) AND o.seq < r.seq))) "
    "ORDER BY r.seq LIMIT ?"
)


def _claim(
    tx: Tx, replica_id: str, now_ms: int, expires_at_ms: int, limit: int
) -> list[RoutineRun]:
    rows = tx.execute(
        "UPDATE automations_routine_runs SET claimed_by = ?, claim_expires_at_ms = ? "
        f"WHERE run_id IN ({_CANDIDATES}{skip_locked(tx)}) "
        f"RETURNING {_RUN_COLS}",
        (replica_id, expires_at_ms, *CLAIMABLE, now_ms, now_ms, *CLAIMABLE, limit),
    ).fetchall()
    runs = [_run(tuple(row)) for row in rows]
    return sorted(runs, key=lambda r: r.created_at_ms)


def _claim_abandoned(tx: Tx, replica_id: str, now_ms: int, expires_at_ms: int) -> list[RoutineRun]:
    rows = tx.execute(
        "UPDATE automations_routine_runs SET claimed_by = ?, claim_expires_at_ms = ? "
        "WHERE run_id IN (SELECT run_id FROM automations_routine_runs WHERE status = ? "
        f"AND (claimed_by IS NULL OR claim_expires_at_ms < ?){skip_locked(tx)}) "
        f"RETURNING {_RUN_COLS}",
        (replica_id, expires_at_ms, "running", now_ms),
    ).fetchall()
    return [_run(tuple(row)) for row in rows]


class RoutineClaimsRepository(ClaimLeases):
    table = "automations_routine_runs"

    async def claim(
        self, replica_id: str, *, now_ms: int, lease_ms: int, limit: int
    ) -> list[RoutineRun]:
        """Up to ``limit`` runs of distinct idle routines (oldest first), now held here."""
        return await self.db.write(_claim, replica_id, now_ms, now_ms + lease_ms, limit)

    async def claim_abandoned(
        self, replica_id: str, *, now_ms: int, lease_ms: int
    ) -> list[RoutineRun]:
        """Every ``running`` run no live replica holds (its replica stopped), now held here."""
        return await self.db.write(_claim_abandoned, replica_id, now_ms, now_ms + lease_ms)


__all__ = ["CLAIMABLE", "RoutineClaimsRepository"]
