"""Storage of the fire journal (table ``automations_fire_journal``).

A tick commits its rows through :meth:`JournalRepository.insert`; a target's
materializing transaction deletes its row with :func:`delete_row`, inside the
target's own repository transaction, so the runs and the row's deletion land
together (exactly once).
"""

from __future__ import annotations

import json

from ...store import Store, Tx
from .decisions import Decisions, JournalRow

_INSERT = (
    "INSERT INTO automations_fire_journal(kind, fired_at_ms, decisions) VALUES (?,?,?) "
    "RETURNING seq"
)


def delete_row(tx: Tx, seq: int) -> bool:
    """For a target repository's materializing transaction: take the row; False if it is gone.

    Called FIRST in that transaction, and nothing else is written when it returns
    False: another replica materialized the row already (a leader cut off from
    the database lost the lock, and the new leader recovered the journal). On
    PostgreSQL the DELETE's row lock makes a concurrent materialization of the
    same row wait for this one and then find nothing, so a row's runs are
    created exactly once.
    """
    tx.execute("DELETE FROM automations_fire_journal WHERE seq = ?", (seq,))
    return tx.changes() > 0


def _insert(tx: Tx, rows: list[tuple[str, int, str]]) -> list[int]:
    return [tx.execute(_INSERT, row).scalar() for row in rows]


def _stored(tx: Tx) -> list[JournalRow]:
    return [
        JournalRow(seq, kind, fired_at_ms, Decisions.of(json.loads(decisions)))
        for seq, kind, fired_at_ms, decisions in tx.execute(
            "SELECT seq, kind, fired_at_ms, decisions FROM automations_fire_journal ORDER BY seq"
        )
    ]


class JournalRepository:
    def __init__(self, db: Store) -> None:
        self.db = db

    async def insert(self, rows: list[tuple[str, int, str]]) -> list[int]:
        """Rows ``(kind, fired_at_ms, decisions JSON)`` in one transaction; their seqs, in order."""
        return await self.db.write(_insert, rows)

    async def stored(self) -> list[JournalRow]:
        """Every row not yet materialized, in seq order."""
        return await self.db.read(_stored)

    async def delete(self, seq: int) -> bool:
        return await self.db.write(delete_row, seq)


__all__ = ["JournalRepository", "delete_row"]
