"""The ``events`` table: batched appends, ranged reads, the highest seq.

The only module of the event log with SQL. Each method is one unit of work on
the store (one transaction, one round trip from the Trio loop); an append of a
whole batch is a single ``executemany`` inside one write, which is what makes
group commit cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..store import Store, Tx
from ._event import Event, event_from_row
from ._filter import EventFilter

_COLUMNS = "seq, event_id, type, occurred_at_ms, session_id, run_id, topic, body"
_INSERT = f"INSERT INTO events({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
SQL_TYPES_MAX = 32
"""Types (or type prefixes) a page narrows by in SQL; more are checked in Python only."""


class EventRepository:
    """Durable events of one engine database."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def append(self, batch: Sequence[Event]) -> None:
        """Append a batch in one write transaction (all of it or none)."""
        rows = [
            (e.seq, e.event_id, e.type, e.occurred_at_ms, e.session_id, e.run_id, e.topic, e.data)
            for e in batch
        ]
        await self._db.write(_insert_rows, rows)

    async def page(
        self,
        filter: EventFilter,
        *,
        after: int,
        before: int,
        limit: int,
        newest_first: bool,
    ) -> list[Event]:
        """Up to ``limit`` events with ``after < seq < before`` narrowed by the
        filter's indexed keys and its types (the caller checks the rest of the filter)."""
        return await self._db.read(_select_page, filter, after, before, limit, newest_first)

    async def max_seq(self) -> int:
        """The highest seq stored (0 for an empty log)."""
        return await self._db.read(_max_seq)


def _insert_rows(tx: Tx, rows: list[tuple[Any, ...]]) -> None:
    tx.executemany(_INSERT, rows)


def _select_page(
    tx: Tx,
    filter: EventFilter,
    after: int,
    before: int,
    limit: int,
    newest_first: bool,
) -> list[Event]:
    clauses = ["seq > ?", "seq < ?"]
    params: list[Any] = [after, before]
    if filter.session_id is not None:
        clauses.append("session_id = ?")
        params.append(filter.session_id)
    elif filter.run_id is not None:
        clauses.append("run_id = ?")
        params.append(filter.run_id)
    if filter.topic is not None:
        clauses.append("topic = ?")
        params.append(filter.topic)
    # Types narrow in SQL too (no index: the seq range is scanned, but only matching
    # rows become events). A follower of a few rare types that fell behind read every
    # event of its backlog into Python, a thousand at a time, to keep one in a hundred.
    if filter.types is not None:
        types = sorted(filter.types)
        if not types:
            return []
        if len(types) <= SQL_TYPES_MAX:
            clauses.append(f"type IN ({','.join('?' * len(types))})")
            params.extend(types)
    if 0 < len(filter.type_prefixes) <= SQL_TYPES_MAX:
        clauses.append(
            "(" + " OR ".join("substr(type, 1, ?) = ?" for _ in filter.type_prefixes) + ")"
        )
        for prefix in filter.type_prefixes:
            params.extend((len(prefix), prefix))
    order = "DESC" if newest_first else "ASC"
    sql = (
        f"SELECT {_COLUMNS} FROM events WHERE {' AND '.join(clauses)} ORDER BY seq {order} LIMIT ?"
    )
    params.append(limit)
    return [event_from_row(*row) for row in tx.execute(sql, params)]


def _max_seq(tx: Tx) -> int:
    return int(tx.execute("SELECT COALESCE(MAX(seq), 0) FROM events").scalar(0))


__all__ = ["EventRepository"]
