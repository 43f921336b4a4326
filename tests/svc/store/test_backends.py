"""The Store protocol, on SQLite and on PostgreSQL alike (``store_backend``)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import trio
import trio.testing

from svc.errors import PersistenceFailed
from svc.store import IntegrityError, Store, Tx, open_store


def _versions(tx: Tx) -> list[int]:
    return [r[0] for r in tx.execute("SELECT version FROM schema_migrations ORDER BY version")]


def _put(key: str, value: str = '"v"', at: int = 1):
    def unit(tx: Tx) -> None:
        tx.execute("INSERT INTO kv(key, value, updated_at_ms) VALUES (?, ?, ?)", (key, value, at))

    return unit


def _count(tx: Tx) -> int:
    return int(tx.execute("SELECT count(*) FROM kv").scalar())


async def test_every_migration_of_the_backend_is_recorded(store_backend: Store) -> None:
    if store_backend.kind == "postgresql":
        from svc.store.postgresql import available_migrations
    else:
        from svc.store.sqlite import available_migrations
    assert await store_backend.read(_versions) == [v for v, _, _ in available_migrations()]


async def test_a_failing_write_rolls_back_its_whole_transaction(store_backend: Store) -> None:
    def half(tx: Tx) -> None:
        _put("a")(tx)
        tx.execute("INSERT INTO no_such_table VALUES (1)")

    with pytest.raises(PersistenceFailed):
        await store_backend.write(half)
    assert await store_backend.read(_count) == 0


async def test_committed_writes_survive_reopening(store_url: str, tmp_path: Path) -> None:
    async with open_store(store_url, state_dir=tmp_path) as store:
        await store.write(_put("k"))
    async with open_store(store_url, state_dir=tmp_path) as store:
        value = await store.read(lambda tx: tx.execute("SELECT value FROM kv WHERE key = 'k'"))
        assert value is not None
        assert await store.read(lambda tx: tx.execute("SELECT value FROM kv").scalar()) == '"v"'


async def test_a_closed_store_refuses_work(store_url: str, tmp_path: Path) -> None:
    async with open_store(store_url, state_dir=tmp_path) as store:
        pass
    with pytest.raises(PersistenceFailed):
        await store.read(lambda tx: 1)
    with pytest.raises(PersistenceFailed):
        await store.write(lambda tx: 1)


async def test_rows_iterate_fetch_and_map(store_backend: Store) -> None:
    def unit(tx: Tx) -> tuple[object, ...]:
        tx.executemany(
            "INSERT INTO kv(key, value, updated_at_ms) VALUES (?, ?, ?)",
            [("a", "1", 1), ("b", "2", 2), ("c", "3", 3)],
        )
        nothing = tx.execute("UPDATE kv SET value = '0' WHERE key = 'none'")
        none_changed = tx.changes()
        select = "SELECT key, updated_at_ms FROM kv ORDER BY key"
        rows = tx.execute(select)
        first = rows.fetchone()
        rest = list(rows)
        return (
            nothing.fetchall(),
            nothing.fetchone(),
            none_changed,
            first,
            rest,
            tx.execute(select).fetchall(),
            tx.execute(select + " LIMIT 1").mappings(),
            tx.execute("SELECT value FROM kv WHERE key = ?", ("none",)).scalar("absent"),
            tx.execute("UPDATE kv SET value = ? WHERE updated_at_ms >= ?", ("9", 2)).mappings(),
            tx.changes(),
        )

    assert await store_backend.write(unit) == (
        [],
        None,
        0,
        ("a", 1),
        [("b", 2), ("c", 3)],
        [("a", 1), ("b", 2), ("c", 3)],
        [{"key": "a", "updated_at_ms": 1}],
        "absent",
        [],
        2,
    )


async def test_named_and_positional_placeholders_and_literal_percent(
    store_backend: Store,
) -> None:
    await store_backend.write(_put("100%", "'quoted ? :not_a_name'"))

    def unit(tx: Tx) -> tuple[object, ...]:
        named = tx.execute(
            "SELECT key FROM kv WHERE key = :key AND updated_at_ms = :at", {"key": "100%", "at": 1}
        ).scalar()
        like = tx.execute(
            "SELECT key FROM kv WHERE key LIKE '%\\%' ESCAPE '\\' AND value LIKE ?", ("%?%",)
        ).scalar()
        literal = tx.execute("SELECT value FROM kv WHERE value = '''quoted ? :not_a_name'''")
        return named, like, literal.scalar(), tx.execute("SELECT 7 % 4").scalar()

    assert await store_backend.read(unit) == ("100%", "100%", "'quoted ? :not_a_name'", 3)


async def test_returning_gives_the_assigned_key(store_backend: Store) -> None:
    def unit(tx: Tx) -> list[int]:
        sql = (
            "INSERT INTO automations_fire_journal(kind, fired_at_ms, decisions)"
            " VALUES (?, ?, ?) RETURNING seq"
        )
        return [tx.execute(sql, ("routine", n, "[]")).scalar() for n in range(3)]

    first, second, third = await store_backend.write(unit)
    assert first < second < third


async def test_booleans_are_stored_as_integers(store_backend: Store) -> None:
    def unit(tx: Tx) -> list[tuple[object, ...]]:
        tx.execute(
            "INSERT INTO workflow_hook_overrides(binding_id, enabled, updated_at_ms)"
            " VALUES (?, ?, ?), (?, ?, ?)",
            ("on", True, 1, "off", False, 1),
        )
        return tx.execute(
            "SELECT binding_id, enabled FROM workflow_hook_overrides WHERE enabled = ?"
            " OR binding_id = 'off' ORDER BY binding_id",
            (True,),
        ).fetchall()

    assert await store_backend.write(unit) == [("off", 0), ("on", 1)]


async def test_a_duplicate_key_is_an_integrity_error(store_backend: Store) -> None:
    await store_backend.write(_put("k"))
    with pytest.raises(IntegrityError):
        await store_backend.write(_put("k"))


async def test_a_missing_foreign_row_is_an_integrity_error(store_backend: Store) -> None:
    def orphan(tx: Tx) -> None:
        tx.execute(
            "INSERT INTO messages(id, session_id, role, created_at_ms, updated_at_ms)"
            " VALUES ('m', 'no-such-session', 'user', 1, 1)"
        )

    with pytest.raises(IntegrityError):
        await store_backend.write(orphan)


async def test_a_caught_integrity_error_leaves_the_transaction_usable(
    store_backend: Store,
) -> None:
    await store_backend.write(_put("taken"))

    def idempotent(tx: Tx) -> bool:
        _put("before")(tx)
        try:
            _put("taken")(tx)
        except IntegrityError:
            lost = True
        _put("after")(tx)
        return lost

    assert await store_backend.write(idempotent)
    keys = await store_backend.read(
        lambda tx: [r[0] for r in tx.execute("SELECT key FROM kv ORDER BY key")]
    )
    assert keys == ["after", "before", "taken"]


async def test_a_write_cancelled_from_outside_still_commits(store_backend: Store) -> None:
    started = threading.Event()
    release = threading.Event()

    def slow(tx: Tx) -> None:
        _put("first")(tx)
        started.set()
        release.wait(30)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(store_backend.write, slow)
        await trio.to_thread.run_sync(started.wait)
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as inner:
                # Queued behind the first write, then cancelled from outside: a
                # write that has been asked for finishes and commits all the same.
                inner.start_soon(store_backend.write, _put("cancelled"))
                await trio.testing.wait_all_tasks_blocked()
                scope.cancel()
                release.set()
    keys = await store_backend.read(
        lambda tx: [r[0] for r in tx.execute("SELECT key FROM kv ORDER BY key")]
    )
    assert keys == ["cancelled", "first"]


async def test_a_read_sees_one_snapshot(store_backend: Store) -> None:
    first_done = threading.Event()
    write_done = threading.Event()

    def twice(tx: Tx) -> tuple[int, int]:
        before = _count(tx)
        first_done.set()
        write_done.wait(30)
        return before, _count(tx)

    async with trio.open_nursery() as nursery:
        result: list[tuple[int, int]] = []

        async def reader() -> None:
            result.append(await store_backend.read(twice))

        nursery.start_soon(reader)
        await trio.to_thread.run_sync(first_done.wait)
        await store_backend.write(_put("meanwhile"))
        write_done.set()
    assert result == [(0, 0)]
    assert await store_backend.read(_count) == 1


async def test_virtual_time_stands_still_while_the_database_works(
    store_backend: Store, autojump_clock: trio.testing.MockClock
) -> None:
    def slow(tx: Tx) -> int:
        time.sleep(0.3)  # real time, longer than the autojump threshold
        return _count(tx)

    start = trio.current_time()
    with trio.fail_after(1):  # virtual: an idle-looking wait would jump past it
        assert await store_backend.write(slow) == 0
        assert await store_backend.read(slow) == 0
    assert trio.current_time() == start
