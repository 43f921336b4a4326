"""The ``events`` table shared by several replicas (PostgreSQL): seq given at commit.

When replicas append to one log, no replica can hand out the next seq by
itself. An append takes a transaction-level advisory lock, reads the highest
seq, numbers its batch after it, writes the batch with ``COPY`` and sends one
``NOTIFY`` carrying the batch's last seq; the commit releases the lock. So
appends are serialised across replicas for the length of one short
transaction, seq order is commit order, and a reader that sees seq N knows
every seq below it is already committed: nothing can appear later in a gap, and
resuming from a cursor is exact.

PostgreSQL-only, like the module that uses it (:mod:`svc.events._shared_log`):
``COPY`` and ``NOTIFY`` need the driver's connection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..store import Store, Tx
from ._event import Event, make_event

if TYPE_CHECKING:
    from ..store.postgresql import PgStore, PgTx

CHANNEL = "svc_events"
"""The ``NOTIFY`` channel; payload ``<replica>:<last seq>``."""

APPEND_LOCK_KEY = 0x73766365
"""The advisory lock key of appends ("svce"); per database, like every advisory lock."""

_COPY = (
    "COPY events (seq, event_id, type, occurred_at_ms, session_id, run_id, topic, body) "
    "FROM STDIN (FORMAT BINARY)"
)
# Binary COPY: the server parses no text and the body needs no escaping (a
# third less time per batch than text COPY, measured on bench_pg's run). The
# types by OID (int8 20, text 25, bytea 17): built-in, the same on every server,
# and no registry lookups per batch.
_COPY_TYPES = (20, 25, 25, 20, 25, 25, 25, 17)
_LOCK_AND_LAST = (
    f"SELECT pg_advisory_xact_lock({APPEND_LOCK_KEY}); SELECT COALESCE(MAX(seq), 0) FROM events"
)


class SharedEventRepository:
    """Appends that number their events in the database (see the module docstring)."""

    def __init__(self, db: Store, *, replica: str) -> None:
        self._db = db
        self._replica = replica

    async def append_numbered(self, drafts: Sequence[Event]) -> list[Event]:
        """Number ``drafts`` after the highest seq, append them, notify; the numbered events."""
        # Beside the store's other writes, not behind them: the advisory lock orders
        # appends, and an append touches nothing else (PgStore.write_alongside).
        return await _pg_store(self._db).write_alongside(_append, drafts, self._replica)


def _append(tx: Tx, drafts: Sequence[Event], replica: str) -> list[Event]:
    pg = _pg(tx)
    # Round trips are what an append costs on a busy engine (each one hands the GIL
    # back and forth with the event loop), so there are four: BEGIN, the lock and
    # the highest seq in one query (two statements: the MAX must take its snapshot
    # after the lock is held), COPY's start and end, and the NOTIFY with the COMMIT.
    row = pg.send(_LOCK_AND_LAST).fetchone()
    last = int(row[0]) if row is not None else 0
    # Serialised here, on the store's worker thread, now that the seq is known.
    events = [
        make_event(
            seq=last + i,
            event_id=d.event_id,
            type=d.type,
            properties=d.properties,
            occurred_at_ms=d.occurred_at_ms,
            session_id=d.session_id,
            run_id=d.run_id,
            topic=d.topic,
        )
        for i, d in enumerate(drafts, start=1)
    ]
    with pg.connection.cursor().copy(_COPY) as copy:
        copy.set_types(_COPY_TYPES)
        for e in events:
            copy.write_row(
                (
                    e.seq,
                    e.event_id,
                    e.type,
                    e.occurred_at_ms,
                    e.session_id,
                    e.run_id,
                    e.topic,
                    e.data,
                )
            )
    # Delivered by PostgreSQL at commit, to every listening replica.
    pg.at_commit(f"SELECT pg_notify('{CHANNEL}', '{_token(replica)}:{events[-1].seq}')")
    return events


def _token(replica: str) -> str:
    # Spliced into the NOTIFY's literal (no parameters travel with the COMMIT).
    if not replica.replace("-", "").isalnum():
        raise ValueError(f"a replica id is letters, digits and dashes: {replica!r}")
    return replica


def _pg_store(db: Store) -> PgStore:
    from ..store.postgresql import PgStore

    if not isinstance(db, PgStore):
        raise TypeError("the shared event log needs a PostgreSQL store")
    return db


def _pg(tx: Tx) -> PgTx:
    from ..store.postgresql import PgTx

    if not isinstance(tx, PgTx):
        raise TypeError("the shared event log needs a PostgreSQL store")
    return tx


__all__ = ["APPEND_LOCK_KEY", "CHANNEL", "SharedEventRepository"]
