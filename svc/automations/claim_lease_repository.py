"""The claim columns both queued-run tables share (``claimed_by``, ``claim_expires_at_ms``).

Renewing, releasing and reading a claim are the same statements on the routine
runs and the automation v2 runs; claiming is each table's own (the routine one
keeps a routine's lane across replicas).
"""

from __future__ import annotations

from ..store import Store, Tx


def skip_locked(tx: Tx) -> str:
    """``FOR UPDATE SKIP LOCKED`` where the store has row locks (PostgreSQL); SQLite has
    one writer at a time, so a claim there needs no lock clause."""
    return " FOR UPDATE SKIP LOCKED" if tx.dialect.name == "postgresql" else ""


class ClaimLeases:
    """Renew, release and read the claims of the runs in ``table``."""

    table = ""

    def __init__(self, db: Store) -> None:
        self.db = db

    async def renew(self, replica_id: str, *, expires_at_ms: int) -> int:
        """Extend every claim ``replica_id`` holds; how many it holds."""
        sql = f"UPDATE {self.table} SET claim_expires_at_ms = ? WHERE claimed_by = ?"

        def q(tx: Tx) -> int:
            tx.execute(sql, (expires_at_ms, replica_id))
            return tx.changes()

        return await self.db.write(q)

    async def release(self, replica_id: str, run_id: str) -> None:
        """The run left this replica: it may be claimed again (by anyone)."""
        sql = (
            f"UPDATE {self.table} SET claimed_by = NULL, claim_expires_at_ms = NULL "
            "WHERE run_id = ? AND claimed_by = ?"
        )

        def q(tx: Tx) -> None:
            tx.execute(sql, (run_id, replica_id))

        await self.db.write(q)

    async def claimed_by(self, run_id: str) -> str | None:
        """Who holds ``run_id`` (for tests and tools)."""
        sql = f"SELECT claimed_by FROM {self.table} WHERE run_id = ?"

        def q(tx: Tx) -> str | None:
            return tx.execute(sql, (run_id,)).scalar()

        return await self.db.read(q)


__all__ = ["ClaimLeases", "skip_locked"]
