"""The SQLite backend of the store: apsw in its Trio async mode.

One writer connection and a small pool of reader connections, each with its own
worker thread (apsw's async controller), so SQLite work never blocks the trio
loop. WAL mode lets readers run while the writer commits.

Work is sent as a plain function ``fn(tx, *args)`` (a unit of work, see
:mod:`svc.store.protocol`) that runs on the connection's worker thread: a
repository method is one round trip however many statements it runs, and
:meth:`SqliteStore.write` wraps it in one transaction.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import apsw
import apsw.aio
import outcome
import trio

from ...errors import PersistenceFailed
from ..dialect import SQLITE, Dialect
from ..errors import IntegrityError
from .migrate import apply_migrations
from .tx import SqliteTx

log = logging.getLogger("svc.store")

T = TypeVar("T")

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    # NORMAL in WAL mode is durable against process crashes (not power loss);
    # the event log relies on group commit for throughput.
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=5000",
    "PRAGMA temp_store=MEMORY",
    "PRAGMA cache_size=-16000",
)


class SqliteStore:
    """Writer and readers over one SQLite file. Open it with :func:`open_sqlite_store`."""

    kind = "sqlite"
    dialect: Dialect = SQLITE

    def __init__(self, path: Path, writer: Any, readers: list[Any]) -> None:
        self.path = path
        self._writer = writer
        self._readers = readers
        self._next_reader = itertools.cycle(range(len(readers)))
        self.closed = False

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(tx, *args)`` in one transaction on the writer connection."""
        self._check_open()
        # Shielded: a write that has started finishes even when its caller is
        # cancelled (shutdown, a cancelled run), so in-memory actor state never
        # disagrees with what was committed. The bound is SQLite's own
        # busy_timeout, not trio time: a trio deadline here would fire spuriously
        # under a MockClock while the worker thread is busy.
        with trio.CancelScope(shield=True):
            try:
                result = await _run_on(self._writer, _in_transaction, self._writer, fn, args)
            except IntegrityError:
                raise  # the unit of work's own failure, already in the seam's terms
            except apsw.Error as exc:
                log.exception("store write failed")
                raise PersistenceFailed(f"database write failed: {type(exc).__name__}") from exc
        return result

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(tx, *args)`` on a reader connection (a consistent snapshot)."""
        self._check_open()
        reader = self._readers[next(self._next_reader)]
        try:
            return await _run_on(reader, _in_read_transaction, reader, fn, args)
        except apsw.Error as exc:
            log.exception("store read failed")
            raise PersistenceFailed(f"database read failed: {type(exc).__name__}") from exc

    def memory_bytes(self) -> int:
        """SQLite's own allocations in this process (every connection's page cache)."""
        return int(apsw.status(apsw.SQLITE_STATUS_MEMORY_USED)[0])

    def _check_open(self) -> None:
        if self.closed:
            raise PersistenceFailed("the store is closed")


async def _run_on(conn: Any, call: Callable[..., T], *args: Any) -> T:
    """``conn.async_run(call, *args)``, kept visibly busy under an autojumping MockClock.

    A task waiting for the worker thread looks idle to trio, and an autojumping
    MockClock would then leap to the next deadline (an ask timeout, a test's
    fail_after) while the database is still working. Under such a clock the
    caller yields in a loop until the call is done, so virtual time only moves
    when the engine is really idle. With the real clock this is a plain await.
    """
    # Duck-typed on purpose: importing trio.testing would import pytest into every
    # engine process, which costs a noticeable share of start-up.
    threshold = getattr(trio.lowlevel.current_clock(), "autojump_threshold", None)
    if threshold is None or threshold == float("inf"):
        return await conn.async_run(call, *args)
    box: list[outcome.Outcome[T]] = []

    async def work() -> None:
        box.append(await outcome.acapture(conn.async_run, call, *args))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(work)
        while not box:  # polling is the point: see the docstring
            await trio.lowlevel.checkpoint()
    return box[0].unwrap()


def _in_transaction(conn: apsw.Connection, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    with conn:
        result = fn(SqliteTx(conn), *args)
    return result


def _in_read_transaction(conn: apsw.Connection, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    # A read transaction gives fn one snapshot across all its statements.
    conn.execute("BEGIN")
    try:
        return fn(SqliteTx(conn), *args)
    finally:
        conn.execute("COMMIT")


async def _connect(path: Path, *, readonly: bool = False) -> Any:
    flags = (
        apsw.SQLITE_OPEN_READONLY
        if readonly
        else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
    )
    # apsw's stubs describe the controller as an instance protocol; the class itself is
    # what apsw expects here (its documented usage).
    token = apsw.async_controller.set(apsw.aio.Trio)  # type: ignore[arg-type]
    try:
        conn = await apsw.Connection.as_async(str(path), flags=flags)
    finally:
        apsw.async_controller.reset(token)

    def configure(c: apsw.Connection) -> None:
        for pragma in _PRAGMAS if not readonly else _PRAGMAS[2:]:
            c.execute(pragma)

    await conn.async_run(configure, conn)
    return conn


@asynccontextmanager
async def open_sqlite_store(path: Path, *, readers: int = 2) -> AsyncIterator[SqliteStore]:
    """Open (creating if needed) the database and apply pending migrations."""
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = await _connect(path)
    reader_conns: list[Any] = []
    try:
        await writer.async_run(apply_migrations, writer)
        for _ in range(readers):
            reader_conns.append(await _connect(path, readonly=True))
        db = SqliteStore(path, writer, reader_conns)
        try:
            yield db
        finally:
            db.closed = True
    finally:
        # Closing is quick; shield it so a cancelled engine still releases files.
        with trio.CancelScope(shield=True):
            for conn in reader_conns:
                await conn.aclose()
            await writer.async_run(_checkpoint, writer)
            await writer.aclose()


def _checkpoint(conn: apsw.Connection) -> None:
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except apsw.BusyError:
        pass  # a reader still holds the WAL; the next start checkpoints it
