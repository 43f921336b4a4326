from __future__ import annotations

from pathlib import Path

import pytest

from svc.errors import PersistenceFailed
from svc.store import Tx
from svc.store.sqlite import available_migrations, open_sqlite_store


def _tables(conn: Tx) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _versions(conn: Tx) -> list[int]:
    return [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]


async def test_migrations_are_applied_once_and_recorded(tmp_path: Path) -> None:
    path = tmp_path / "svc.db"
    async with open_sqlite_store(path) as db:
        tables = await db.read(_tables)
        assert {"events", "kv", "schema_migrations"} <= tables
        first = await db.read(_versions)
    async with open_sqlite_store(path) as db:
        assert await db.read(_versions) == first == [v for v, _, _ in available_migrations()]


async def test_database_is_in_wal_mode(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db:
        mode = await db.write(lambda c: c.execute("PRAGMA journal_mode").fetchone()[0])
        assert mode == "wal"


async def test_a_failing_write_rolls_back_its_whole_transaction(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db:

        def half(conn: Tx) -> None:
            conn.execute("INSERT INTO kv(key, value, updated_at_ms) VALUES ('a', '1', 0)")
            conn.execute("INSERT INTO no_such_table VALUES (1)")

        with pytest.raises(PersistenceFailed):
            await db.write(half)
        rows = await db.read(lambda c: c.execute("SELECT count(*) FROM kv").fetchone()[0])
        assert rows == 0


async def test_committed_writes_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "svc.db"
    async with open_sqlite_store(path) as db:
        await db.write(
            lambda c: c.execute(
                "INSERT INTO kv(key, value, updated_at_ms) VALUES ('k', '\"v\"', 1)"
            )
        )
    async with open_sqlite_store(path) as db:
        value = await db.read(
            lambda c: c.execute("SELECT value FROM kv WHERE key = 'k'").fetchone()[0]
        )
        assert value == '"v"'


async def test_a_closed_store_refuses_work(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db:
        pass
    with pytest.raises(PersistenceFailed):
        await db.read(lambda c: 1)
