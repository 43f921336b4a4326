"""What the exchange recorder persists: its records together with its cursor.

The cursor (the last event seq handled) is committed in the same transaction as
the records written for the events up to it, so a restart resumes exactly where
the recorder stopped and never stores an exchange twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..store import Store, Tx
from .record_repository import RecordRepository
from .state_repository import get_state, put_state

if TYPE_CHECKING:
    from .records import MemoryRecord

CURSOR_KEY = "exchanges.cursor"


class ExchangeRepository:
    def __init__(self, db: Store, records: RecordRepository) -> None:
        self._db = db
        self._records = records

    async def cursor(self) -> int | None:
        """The last event seq handled, or None before the first start on this database."""
        value = await self._db.read(get_state, CURSOR_KEY)
        return None if value is None else int(value)

    async def set_cursor(self, cursor: int, *, now_ms: int) -> None:
        await self._db.write(put_state, CURSOR_KEY, cursor, now_ms)

    async def commit(self, records: Sequence[MemoryRecord], *, cursor: int, now_ms: int) -> int:
        """Store ``records`` (those already stored are skipped) and move the cursor
        to ``cursor``, in one transaction; returns how many records were new."""

        def q(tx: Tx) -> int:
            stored = self._records.insert_in(tx, records, ignore_existing=True)
            put_state(tx, CURSOR_KEY, cursor, now_ms)
            return stored

        return await self._db.write(q)


__all__ = ["CURSOR_KEY", "ExchangeRepository"]
