"""The PostgreSQL backend of the store: psycopg 3 (synchronous) on worker threads.

Under Trio the synchronous driver runs on worker threads
(``trio.to_thread.run_sync``), over a ``psycopg_pool.ConnectionPool``; a
``trio.CapacityLimiter`` sized to the pool bounds the threads, so a unit of work
never holds a thread while it waits for a connection.

A unit of work (``fn(tx, *args)``, see :mod:`svc.store.protocol`) runs on one
pooled connection in one transaction: a write in READ COMMITTED, a read in a
read-only REPEATABLE READ transaction (one snapshot for all its statements).
Writes of one store run one at a time, as on SQLite, whose one writer
connection the repositories were written against; replicas sharing the
database coordinate through the database itself (leases, advisory locks).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import outcome
import psycopg
import psycopg_pool
import trio

from ...errors import PersistenceFailed
from ..autojump import autojumping
from ..dialect import POSTGRESQL, Dialect
from ..errors import IntegrityError
from .adapters import configure
from .migrate import apply_migrations
from .tx import PgTx
from .url import redacted

log = logging.getLogger("svc.store")

T = TypeVar("T")

Pool = psycopg_pool.ConnectionPool[psycopg.Connection[tuple[Any, ...]]]

# A statement waiting this long for a row lock fails (SQLite's busy_timeout plays
# this part there): it bounds a shielded write without a trio deadline.
LOCK_TIMEOUT_MS = 5000
# How long a unit of work waits for a pooled connection before it fails.
POOL_TIMEOUT_S = 30.0


class PgStore:
    """A pool of connections to one database. Open it with :func:`open_pg_store`."""

    kind = "postgresql"
    dialect: Dialect = POSTGRESQL

    def __init__(self, url: str, pool: Pool, size: int) -> None:
        self.url = redacted(url)  # never the password: this is what logs may show
        self._conninfo = url  # for connections of their own (LISTEN, advisory locks)
        self._pool = pool
        self._limiter = trio.CapacityLimiter(size)
        self._write_lock = trio.Lock()
        self.closed = False

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(tx, *args)`` in one transaction on a pooled connection."""
        self._check_open()
        # Shielded: a write that has started finishes even when its caller is
        # cancelled (shutdown, a cancelled run), so in-memory actor state never
        # disagrees with what was committed. The bound is the server's
        # lock_timeout and the pool's timeout, not trio time: a trio deadline
        # here would fire spuriously under a MockClock while the thread works.
        with trio.CancelScope(shield=True):
            async with self._write_lock:
                result = await self._commit(fn, args)
        return result

    async def write_alongside(self, fn: Callable[..., T], *args: Any) -> T:
        """:meth:`write`, without waiting for this store's other writes (nor they for it).

        For a unit of work that serialises itself in the database and touches nothing
        the repositories' read-modify-write units do: the shared event log's append
        (its own advisory lock, its own table). Appends are most of a streaming run's
        writes; behind the one write lock every other write of the engine queued
        after them.
        """
        self._check_open()
        with trio.CancelScope(shield=True):  # as in write(), for the same reason
            result = await self._commit(fn, args)
        return result

    async def _commit(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        try:
            return await _run_in_thread(self._limiter, _in_transaction, self._pool, fn, args)
        except IntegrityError:
            raise  # the unit of work's own failure, already in the seam's terms
        except psycopg.Error as exc:
            log.exception("store write failed")
            raise PersistenceFailed(f"database write failed: {type(exc).__name__}") from exc

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(tx, *args)`` on one snapshot (a read-only REPEATABLE READ transaction)."""
        self._check_open()
        try:
            return await _run_in_thread(self._limiter, _in_read_transaction, self._pool, fn, args)
        except IntegrityError:
            raise
        except psycopg.Error as exc:
            log.exception("store read failed")
            raise PersistenceFailed(f"database read failed: {type(exc).__name__}") from exc

    async def listen(
        self,
        channel: str,
        on_notify: Callable[[list[str]], Awaitable[None]],
        *,
        on_reconnect: Callable[[], Awaitable[None]],
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """``LISTEN`` on ``channel`` until cancelled (:func:`.notify.listen`)."""
        from .notify import listen

        await listen(
            self._conninfo, channel, on_notify, on_reconnect=on_reconnect, task_status=task_status
        )

    async def lead(
        self,
        key: int,
        body: Callable[[], Awaitable[object]],
        *,
        poll_s: float,
        on_lead: Callable[[bool], None] = lambda leading: None,
    ) -> None:
        """Run ``body()`` only while holding advisory lock ``key`` (:func:`.advisory.lead`)."""
        from .advisory import lead

        await lead(self._conninfo, key, body, poll_s=poll_s, on_lead=on_lead)

    def memory_bytes(self) -> int:
        """0: the data lives in the server (the driver's buffers are not counted)."""
        return 0

    def _check_open(self) -> None:
        if self.closed:
            raise PersistenceFailed("the store is closed")


async def _run_in_thread(limiter: trio.CapacityLimiter, call: Callable[..., T], *args: Any) -> T:
    """``trio.to_thread.run_sync(call, *args)``, kept visibly busy under an autojumping
    MockClock (svc/store/autojump.py)."""
    if not autojumping():
        return await trio.to_thread.run_sync(call, *args, limiter=limiter)
    box: list[outcome.Outcome[T]] = []

    async def work() -> None:
        box.append(await outcome.acapture(trio.to_thread.run_sync, call, *args, limiter=limiter))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(work)
        while not box:  # polling is the point: see svc/store/autojump.py
            await trio.lowlevel.checkpoint()
    return box[0].unwrap()


def _in_transaction(pool: Pool, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    with pool.connection(timeout=POOL_TIMEOUT_S) as conn:
        # BEGIN goes with the unit of work's first statement (one round trip fewer).
        tx = PgTx(conn, write=True, begin="BEGIN")
        try:
            result = fn(tx, *args)
        except BaseException:
            if tx.begin is None:
                _rollback(conn)
            raise
        if tx.begin is not None:
            return result  # no statement: no transaction was begun
        try:
            conn.execute(tx.commit_query)
        except psycopg.IntegrityError as exc:  # a deferred constraint, checked at commit
            _rollback(conn)
            raise IntegrityError(f"constraint failed at commit: {exc.sqlstate}") from exc
        except BaseException:
            # A statement queued before the COMMIT failed: the transaction is left
            # aborted (or, if COMMIT itself failed, already over: the rollback is a no-op).
            _rollback(conn)
            raise
        return result


_BEGIN_READ = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
"""One snapshot for every statement of a unit of work that reads."""


def _in_read_transaction(pool: Pool, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    with pool.connection(timeout=POOL_TIMEOUT_S) as conn:
        tx = PgTx(conn, write=False, begin=_BEGIN_READ)
        try:
            return fn(tx, *args)
        finally:
            if tx.begin is None:
                _rollback(conn)  # nothing to keep: a read-only transaction ends either way


def _rollback(conn: psycopg.Connection[Any]) -> None:
    if conn.closed:
        return  # a broken connection: the pool discards it
    try:
        conn.execute("ROLLBACK")
    except psycopg.Error:
        log.warning("rollback failed; the pool discards the connection", exc_info=True)


def _connection_kwargs() -> dict[str, Any]:
    return {
        # Transactions are begun and ended explicitly (see _in_transaction).
        "autocommit": True,
        # Client-side binding (see svc/store/postgresql/tx.py).
        "cursor_factory": psycopg.ClientCursor,
        "options": f"-c lock_timeout={LOCK_TIMEOUT_MS}",
    }


def _migrate(url: str) -> list[int]:
    with psycopg.connect(url, autocommit=True, cursor_factory=psycopg.ClientCursor) as conn:
        return apply_migrations(conn)


def _open_pool(url: str, size: int) -> Pool:
    pool: Pool = psycopg_pool.ConnectionPool(
        url,
        min_size=1,
        max_size=size,
        kwargs=_connection_kwargs(),
        configure=configure,
        open=False,
        name="svc-store",
        timeout=POOL_TIMEOUT_S,
    )
    pool.open(wait=True, timeout=POOL_TIMEOUT_S)
    return pool


@asynccontextmanager
async def open_pg_store(url: str, *, pool_size: int = 4) -> AsyncIterator[PgStore]:
    """Connect to the database ``url`` names and apply pending migrations."""
    shown = redacted(url)
    try:
        applied = await trio.to_thread.run_sync(_migrate, url)
        pool = await trio.to_thread.run_sync(_open_pool, url, pool_size)
    except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
        # libpq's messages name the host and user, never the password.
        raise PersistenceFailed(f"cannot open the PostgreSQL store {shown}: {exc}") from exc
    if applied:
        log.info("store migrated", extra={"store": shown, "versions": applied})
    store = PgStore(url, pool, pool_size)
    try:
        yield store
    finally:
        store.closed = True
        # Closing waits for the pool's threads; shield it so a cancelled engine
        # still releases its connections.
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(pool.close)


__all__ = ["LOCK_TIMEOUT_MS", "PgStore", "open_pg_store"]
