"""The SQLite backend of the store: apsw connections, short work on the event loop.

One writer connection and a small pool of read-only connections (WAL mode lets
readers run while the writer commits), each with its own worker thread.

Work is sent as a plain function ``fn(tx, *args)`` (a unit of work, see
:mod:`svc.store.protocol`): a repository method is one call however many
statements it runs, and :meth:`SqliteStore.write` wraps it in one transaction.

**Where a unit of work runs.** SQLite answers most units of work in tens of
microseconds, while handing one to a worker thread and back costs two thread
wake-ups, 0.1 to 0.3 ms on the small machines this engine is measured on (more
than the work itself, and they add up on every request). So a unit of work
first runs on the event loop's own thread, on a connection whose worker is idle,
under a time budget (:data:`INLINE_BUDGET_S`) that SQLite's progress handler
enforces: past it, every statement is interrupted, the attempt is rolled back
whole, and the unit runs again from the start on the connection's worker thread,
where a long scan or a big batch does not hold up the loop. Its function then
goes straight to the worker for a while (:data:`OVERRAN_FOR_S`). Python work
between statements holds the GIL on either thread, so running it on the loop
costs the loop nothing it would not have paid anyway.

WAL checkpoints never run on the loop: the writer's automatic checkpoint is off,
and a commit that leaves the WAL past :data:`CHECKPOINT_PAGES` queues a passive
checkpoint on the writer's worker thread.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import CodeType
from typing import Any, TypeVar

import apsw
import outcome
import trio

from ...errors import PersistenceFailed
from ..autojump import autojumping
from ..dialect import SQLITE, Dialect
from ..errors import IntegrityError
from .migrate import apply_migrations
from .tx import SqliteTx

log = logging.getLogger("svc.store")

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
"""How long a worker waits for another process's lock on the database."""

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    # NORMAL in WAL mode is durable against process crashes (not power loss);
    # the event log relies on group commit for throughput.
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
    "PRAGMA temp_store=MEMORY",
    "PRAGMA cache_size=-16000",
)

INLINE_BUDGET_S = 0.002
"""How long a unit of work may hold the event loop before it moves to a worker thread."""

INLINE_CHECK_STEPS = 1000
"""SQLite VM steps between budget checks of a unit of work on the loop (a few tens of µs)."""

CANCEL_CHECK_STEPS = 50_000
"""VM steps between checks of whether a worker's read has been given up by its caller."""

OVERRAN_FOR_S = 1.0
"""After overrunning the budget, a unit of work's function goes to the worker this long."""

CHECKPOINT_PAGES = 1000
"""WAL pages after which a passive checkpoint is queued (SQLite's own default)."""


class _Overran(Exception):
    """A unit of work ran past the loop's budget (its attempt was rolled back)."""


class _Job:
    __slots__ = ("args", "call", "cancelled", "done", "result")

    def __init__(self, call: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.call = call
        self.args = args
        self.cancelled = False
        self.done = trio.Event()
        self.result: outcome.Outcome[Any] | None = None


class _Connection:
    """One apsw connection and the worker thread that runs queued work on it.

    The loop runs work on the connection itself only while no job is queued or
    running (``idle``): the connection is never used by two threads at once.
    """

    def __init__(self, conn: apsw.Connection, name: str) -> None:
        self.conn = conn
        self._token = trio.lowlevel.current_trio_token()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._pending = 0  # jobs queued or running; changed on the loop's thread only
        self._current: _Job | None = None
        self.checkpoint_due = False
        """A commit on the loop left the WAL long: checkpoint once the loop is done with it."""
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    @property
    def idle(self) -> bool:
        return self._pending == 0

    def submit(self, call: Callable[..., Any], *args: Any) -> _Job:
        job = _Job(call, args)
        self._pending += 1
        self._jobs.put(job)
        return job

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` on the worker thread."""
        job = self.submit(call, *args)
        try:
            await _wait(job.done)
        except BaseException:
            # Given up (the caller was cancelled): the worker skips it or interrupts it.
            job.cancelled = True
            raise
        assert job.result is not None
        return job.result.unwrap()

    def inline(
        self, call: _Call[T], fn: Callable[..., Any], args: tuple[Any, ...], *, budget_s: float
    ) -> T:
        """``call(conn, fn, args, overran)`` on this thread (the loop's), interrupted past
        ``budget_s``: raises :class:`_Overran` with the attempt rolled back."""
        deadline = time.perf_counter() + budget_s
        over = False

        def check() -> bool:
            # Sticky: once past the deadline every later statement that runs long
            # enough to be checked fails too; `call` checks `overran` before it
            # commits, for the short ones and for a unit of work that caught the
            # first interrupt and went on.
            nonlocal over
            over = over or time.perf_counter() > deadline
            return over

        self.conn.set_progress_handler(check, INLINE_CHECK_STEPS)
        # Never wait for a lock on the loop (another process writing the file): a busy
        # database sends the unit of work to the worker, which waits its busy timeout.
        self.conn.set_busy_handler(_no_wait)
        try:
            return call(self.conn, fn, args, lambda: over)
        except (apsw.Error, _Overran) as exc:
            # Past the budget, whatever was raised came of the interrupt (an interrupted
            # write rolls its transaction back, and the savepoint's own rollback then
            # fails); a busy database is sent on as well.
            if over or isinstance(exc, apsw.BusyError):
                over = True
                raise _Overran from None
            raise
        finally:
            self.conn.set_progress_handler(None)
            self.conn.set_busy_timeout(BUSY_TIMEOUT_MS)
            if over and self.conn.in_transaction:
                self.conn.execute("ROLLBACK")

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            if job.cancelled:
                job.result = outcome.Value(None)  # nobody reads it: its caller has gone
            else:
                # Everything the job does, its set-up included, lands in its result:
                # this thread must outlive any failure, or every later job would hang.
                job.result = outcome.capture(self._run_job, job)
            try:
                self._token.run_sync_soon(self._finished, job)
            except trio.RunFinishedError:
                return  # the loop is gone (closing): nobody waits any more

    def _run_job(self, job: _Job) -> Any:
        self._current = job
        self.conn.set_progress_handler(self._given_up, CANCEL_CHECK_STEPS)
        try:
            return job.call(*job.args)
        finally:
            self.conn.set_progress_handler(None)
            self._current = None

    def _given_up(self) -> bool:
        job = self._current
        return job is not None and job.cancelled

    def _finished(self, job: _Job) -> None:
        self._pending -= 1
        job.done.set()

    async def close(self) -> None:
        self._jobs.put(None)
        await trio.to_thread.run_sync(self._thread.join)
        self.conn.close()


def _no_wait(_attempts: int) -> bool:
    return False


async def _wait(done: trio.Event) -> None:
    """``done.wait()``, kept visibly busy under an autojumping MockClock (svc/store/autojump.py)."""
    if not autojumping():
        await done.wait()
        return
    while not done.is_set():  # polling is the point: see svc/store/autojump.py
        await trio.lowlevel.checkpoint()


class SqliteStore:
    """Writer and readers over one SQLite file. Open it with :func:`open_sqlite_store`."""

    kind = "sqlite"
    dialect: Dialect = SQLITE

    def __init__(self, path: Path, writer: _Connection, readers: list[_Connection]) -> None:
        self.path = path
        self._writer = writer
        self._readers = readers
        self._next_reader = itertools.cycle(range(len(readers)))
        self._overran: dict[CodeType, float] = {}
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
                result: T = await self._run(self._writer, _in_transaction, fn, args)
            except IntegrityError:
                raise  # the unit of work's own failure, already in the seam's terms
            except apsw.Error as exc:
                log.exception("store write failed")
                raise PersistenceFailed(f"database write failed: {type(exc).__name__}") from exc
        return result

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(tx, *args)`` on a reader connection (a consistent snapshot)."""
        self._check_open()
        reader = next((r for r in self._readers if r.idle), None)
        if reader is None:
            reader = self._readers[next(self._next_reader)]
        try:
            return await self._run(reader, _in_read_transaction, fn, args)
        except apsw.Error as exc:
            log.exception("store read failed")
            raise PersistenceFailed(f"database read failed: {type(exc).__name__}") from exc

    async def _run(
        self,
        connection: _Connection,
        call: _Call[T],
        fn: Callable[..., Any],
        args: tuple[Any, ...],
    ) -> T:
        code = getattr(fn, "__code__", None)
        if connection.idle and not self._overran_lately(code):
            try:
                result = connection.inline(call, fn, args, budget_s=INLINE_BUDGET_S)
            except _Overran:
                if code is not None:
                    self._overran[code] = time.monotonic() + OVERRAN_FOR_S
            else:
                if connection.checkpoint_due:
                    connection.checkpoint_due = False
                    connection.submit(_checkpoint_passive, connection.conn)
                # A store call is a checkpoint, wherever it ran: callers that loop over
                # it still let other tasks run and still see cancellation.
                await trio.lowlevel.checkpoint()
                return result
        return await connection.run(call, connection.conn, fn, args, _never)

    def _overran_lately(self, code: CodeType | None) -> bool:
        until = self._overran.get(code) if code is not None else None
        if until is None:
            return False
        if time.monotonic() < until:
            return True
        del self._overran[code]  # type: ignore[arg-type]
        return False

    def memory_bytes(self) -> int:
        """SQLite's own allocations in this process (every connection's page cache)."""
        return int(apsw.status(apsw.SQLITE_STATUS_MEMORY_USED)[0])

    def _check_open(self) -> None:
        if self.closed:
            raise PersistenceFailed("the store is closed")


_Call = Callable[[apsw.Connection, Callable[..., T], tuple[Any, ...], Callable[[], bool]], T]
"""How a unit of work is run: ``call(conn, fn, args, overran)``."""


def _never() -> bool:
    return False


def _in_transaction(
    conn: apsw.Connection, fn: Callable[..., T], args: tuple[Any, ...], overran: Callable[[], bool]
) -> T:
    with conn:
        result = fn(SqliteTx(conn), *args)
        if overran():
            raise _Overran  # rolled back by the block: nothing of the attempt commits
    return result


def _in_read_transaction(
    conn: apsw.Connection, fn: Callable[..., T], args: tuple[Any, ...], overran: Callable[[], bool]
) -> T:
    # A read transaction gives fn one snapshot across all its statements.
    conn.execute("BEGIN")
    try:
        result = fn(SqliteTx(conn), *args)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
    if overran():
        raise _Overran  # what it read may be partial (an interrupt it caught)
    return result


def _connect(path: Path, *, readonly: bool = False) -> apsw.Connection:
    flags = (
        apsw.SQLITE_OPEN_READONLY
        if readonly
        else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
    )
    conn = apsw.Connection(str(path), flags=flags)
    for pragma in _PRAGMAS if not readonly else _PRAGMAS[2:]:
        conn.execute(pragma)
    return conn


def _watch_wal(writer: _Connection) -> None:
    """Checkpoint on the writer's worker thread, never on the loop (module docstring)."""

    def after_commit(conn: apsw.Connection, name: str, pages: int) -> int:
        if pages >= CHECKPOINT_PAGES:
            if threading.current_thread() is writer._thread:
                _checkpoint_passive(conn)  # already off the loop
            else:
                # Not queued from here: this runs inside the loop's COMMIT, and the
                # worker must not touch the connection until the loop is done with it
                # (apsw refuses, and the worker would die). SqliteStore._run queues it.
                writer.checkpoint_due = True
        return apsw.SQLITE_OK

    writer.conn.wal_autocheckpoint(0)
    writer.conn.set_wal_hook(after_commit)


@asynccontextmanager
async def open_sqlite_store(path: Path, *, readers: int = 2) -> AsyncIterator[SqliteStore]:
    """Open (creating if needed) the database and apply pending migrations."""
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = _Connection(await trio.to_thread.run_sync(_connect, path), "svc-store-writer")
    reader_conns: list[_Connection] = []
    try:
        await writer.run(apply_migrations, writer.conn)
        _watch_wal(writer)
        for index in range(readers):
            conn = await trio.to_thread.run_sync(lambda: _connect(path, readonly=True))
            reader_conns.append(_Connection(conn, f"svc-store-reader-{index}"))
        db = SqliteStore(path, writer, reader_conns)
        try:
            yield db
        finally:
            db.closed = True
    finally:
        # Closing is quick; shield it so a cancelled engine still releases files.
        with trio.CancelScope(shield=True):
            for reader in reader_conns:
                await reader.close()
            await writer.run(_checkpoint, writer.conn)
            await writer.close()


def _checkpoint_passive(conn: apsw.Connection) -> None:
    try:
        conn.wal_checkpoint(mode=apsw.SQLITE_CHECKPOINT_PASSIVE)
    except apsw.BusyError:
        pass  # the next commit past the threshold tries again
    except apsw.Error:
        log.exception("WAL checkpoint failed; the next commit past the threshold retries")


def _checkpoint(conn: apsw.Connection) -> None:
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except apsw.BusyError:
        pass  # a reader still holds the WAL; the next start checkpoints it
