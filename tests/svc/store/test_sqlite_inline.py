"""Where SQLite work runs: on the event loop under a budget, or on a worker thread.

Every unit of work first runs on the loop's thread; one that runs past the budget
is interrupted, rolled back whole and run again on its connection's worker thread
(svc/store/sqlite/store.py). These tests tell the attempts apart by the thread
they ran on, never by how long they took.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import apsw
import pytest
import trio
import trio.lowlevel

from svc.store import Tx, open_store
from svc.store.sqlite import store as sqlite_store
from svc.store.sqlite.store import SqliteStore

# A query that runs far past the loop's budget (a few hundred ms), yet returns one row.
HEAVY = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) "
    "SELECT count(*) FROM n"
)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    async with open_store(f"sqlite://{tmp_path / 'svc.db'}", state_dir=tmp_path) as db:
        assert isinstance(db, SqliteStore)
        yield db


def _count(tx: Tx) -> int:
    return int(tx.execute("SELECT count(*) FROM kv").scalar())


async def test_short_work_runs_on_the_loop(store: SqliteStore) -> None:
    threads: list[str] = []

    def put(tx: Tx) -> None:
        threads.append(threading.current_thread().name)
        tx.execute("INSERT INTO kv(key, value, updated_at_ms) VALUES ('a', '1', 1)")

    def get(tx: Tx) -> int:
        threads.append(threading.current_thread().name)
        return _count(tx)

    await store.write(put)
    assert await store.read(get) == 1
    assert threads == [threading.current_thread().name] * 2


async def test_a_read_past_the_budget_runs_again_on_a_worker(store: SqliteStore) -> None:
    threads: list[str] = []

    def heavy(tx: Tx) -> int:
        threads.append(threading.current_thread().name)
        return int(tx.execute(HEAVY).scalar())

    assert await store.read(heavy) == 3_000_000
    assert threads[0] == threading.current_thread().name
    assert threads[1].startswith("svc-store-reader-") and len(threads) == 2
    # For a while the same function goes straight to the worker.
    threads.clear()
    assert await store.read(heavy) == 3_000_000
    assert len(threads) == 1 and threads[0].startswith("svc-store-reader-")
    # Other work still runs on the loop.
    loop_threads: list[str] = []

    def light(tx: Tx) -> int:
        loop_threads.append(threading.current_thread().name)
        return _count(tx)

    assert await store.read(light) == 0
    assert loop_threads == [threading.current_thread().name]


async def test_a_write_past_the_budget_commits_once_even_when_it_swallows_the_interrupt(
    store: SqliteStore,
) -> None:
    attempts: list[str] = []

    def write(tx: Tx) -> None:
        attempts.append(threading.current_thread().name)
        tx.execute(
            "INSERT INTO kv(key, value, updated_at_ms) VALUES (?, '1', 1)", (f"k{len(attempts)}",)
        )
        try:
            tx.execute(HEAVY).scalar()
        except apsw.InterruptError:
            pass  # a careless unit of work: the next statement is interrupted too
        tx.execute(
            "INSERT INTO kv(key, value, updated_at_ms) VALUES (?, '2', 2)", (f"j{len(attempts)}",)
        )

    await store.write(write)
    assert attempts == [threading.current_thread().name, "svc-store-writer"]
    keys = await store.read(
        lambda tx: [r[0] for r in tx.execute("SELECT key FROM kv ORDER BY key")]
    )
    assert keys == ["j2", "k2"]  # the first attempt left nothing behind


async def test_a_given_up_read_on_a_worker_stops_and_frees_its_connection(
    store: SqliteStore,
) -> None:
    def heavy(tx: Tx) -> int:
        return int(tx.execute(HEAVY.replace("3000000", "300000000")).scalar())

    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:

            async def cancel_once_queued() -> None:
                while all(r.idle for r in store._readers):
                    await trio.lowlevel.checkpoint()
                scope.cancel()

            nursery.start_soon(cancel_once_queued)
            await store.read(heavy)
    assert scope.cancelled_caught
    # The worker interrupted the abandoned query: every reader is free again.
    with trio.fail_after(30):
        while not all(r.idle for r in store._readers):  # noqa: ASYNC110 (a thread's state)
            await trio.sleep(0.01)
    assert await store.read(_count) == 0


async def test_checkpoints_run_on_the_writer_s_worker(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit on the loop that leaves the WAL long queues a checkpoint only once the
    loop is done with the connection: queued from inside the commit, the worker took
    the connection while the loop still held it (apsw refuses: the worker died, and
    every later write waited forever; the soak found it)."""
    checkpointed: list[str] = []
    original = sqlite_store._checkpoint_passive

    def spy(conn: apsw.Connection) -> None:
        checkpointed.append(threading.current_thread().name)
        original(conn)

    monkeypatch.setattr(sqlite_store, "CHECKPOINT_PAGES", 1)
    monkeypatch.setattr(sqlite_store, "_checkpoint_passive", spy)
    submit = store._writer.submit

    def submit_then_linger(call: Any, *args: Any) -> Any:
        # Gives the worker time to start on the job while the caller, if it is
        # still inside a commit, holds the connection: the race made certain.
        job = submit(call, *args)
        time.sleep(0.02)
        return job

    monkeypatch.setattr(store._writer, "submit", submit_then_linger)
    value = "x" * 3000
    with trio.fail_after(60):  # with the worker dead, a write would wait forever
        for i in range(100):
            await store.write(
                lambda tx, i=i: tx.execute(
                    "INSERT INTO kv(key, value, updated_at_ms) VALUES (?, ?, 1)", (f"k{i}", value)
                )
            )
    with trio.fail_after(30):
        while not store._writer.idle:  # noqa: ASYNC110 (a thread's state)
            await trio.sleep(0.01)
    assert store._writer._thread.is_alive()
    assert len(checkpointed) > 10 and set(checkpointed) == {"svc-store-writer"}
    assert await store.read(_count) == 100


async def test_a_lock_held_by_another_process_is_waited_for_on_the_worker(
    store: SqliteStore,
) -> None:
    other = apsw.Connection(str(store.path))
    other.execute("BEGIN IMMEDIATE")  # another writer of the file holds the write lock
    threads: list[str] = []

    def put(tx: Tx) -> None:
        threads.append(threading.current_thread().name)
        tx.execute("INSERT INTO kv(key, value, updated_at_ms) VALUES ('a', '1', 1)")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(store.write, put)
        # The loop goes on while the write waits on its worker for the lock.
        while store._writer.idle:
            await trio.lowlevel.checkpoint()
        other.execute("COMMIT")
    other.close()
    assert threads == [threading.current_thread().name, "svc-store-writer"]
    assert await store.read(_count) == 1


async def test_an_interrupted_write_statement_is_rolled_back_and_run_again_on_the_worker(
    store: SqliteStore,
) -> None:
    threads: list[str] = []

    def bulk(tx: Tx) -> None:
        # Interrupting a changing statement makes SQLite roll back the whole
        # transaction itself; the attempt still ends as an overrun, not an error.
        threads.append(threading.current_thread().name)
        tx.execute(
            "INSERT INTO kv(key, value, updated_at_ms) "
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) "
            "SELECT 'k' || i, 'v', i FROM n"
        )

    await store.write(bulk)
    assert threads == [threading.current_thread().name, "svc-store-writer"]
    assert await store.read(_count) == 200_000
