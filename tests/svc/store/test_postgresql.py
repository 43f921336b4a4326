"""What is particular to the PostgreSQL store: migrations, schema, URLs, failures."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import psycopg
import pytest
import trio

from svc.errors import ConfigError, PersistenceFailed
from svc.store import Store, Tx, open_store
from svc.store.postgresql import PgStore, apply_migrations, available_migrations
from svc.store.postgresql.url import redacted
from tests.pg import PgCluster

REPLICAS = 4


def _applied(tx: Tx) -> list[tuple[int, str]]:
    return [(r[0], r[1]) for r in tx.execute("SELECT version, name FROM schema_migrations")]


async def test_replicas_starting_together_apply_each_migration_once(
    pg_empty_url: str, tmp_path: Path
) -> None:
    expected = sorted((v, name) for v, name, _ in available_migrations())
    applied_by_each: list[list[int]] = []
    barrier = threading.Barrier(REPLICAS)

    def migrate() -> None:
        with psycopg.connect(pg_empty_url, autocommit=True) as conn:
            barrier.wait(30)  # every replica connected: all start at the same moment
            applied_by_each.append(apply_migrations(conn))

    async with trio.open_nursery() as nursery:
        for _ in range(REPLICAS):
            nursery.start_soon(trio.to_thread.run_sync, migrate)
    together = sorted(v for done in applied_by_each for v in done)
    assert together == [v for v, _ in expected]  # each applied once, by one replica

    # Engines opening stores on it at once find nothing left to do.
    stores: list[Store] = []

    async def open_one() -> None:
        async with open_store(pg_empty_url, state_dir=tmp_path) as store:
            stores.append(store)
            assert sorted(await store.read(_applied)) == expected

    async with trio.open_nursery() as nursery:
        for _ in range(REPLICAS):
            nursery.start_soon(open_one)
    assert len(stores) == REPLICAS


async def test_stores_opened_together_on_a_fresh_database_migrate_it_once(
    pg_empty_url: str, tmp_path: Path
) -> None:
    async def open_one() -> None:
        async with open_store(pg_empty_url, state_dir=tmp_path) as store:
            assert store.kind == "postgresql"

    async with trio.open_nursery() as nursery:
        for _ in range(REPLICAS):
            nursery.start_soon(open_one)
    with psycopg.connect(pg_empty_url) as conn:
        rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    assert [r[0] for r in rows] == [v for v, _, _ in available_migrations()]


# Migrations PostgreSQL has alone, each for a reason: tables of what only a
# shared database has (replicas and their leases).
POSTGRESQL_ONLY = {(20, "cluster")}


def test_each_sqlite_migration_has_a_postgresql_twin() -> None:
    from svc.store.sqlite import available_migrations as sqlite_migrations

    pg = {(v, n) for v, n, _ in available_migrations()}
    sqlite = {(v, n) for v, n, _ in sqlite_migrations()}
    assert sqlite <= pg
    assert pg - sqlite == POSTGRESQL_ONLY


async def test_an_identity_key_follows_explicit_values(pg_url: str, tmp_path: Path) -> None:
    def unit(tx: Tx) -> list[int]:
        insert = "INSERT INTO automations_fire_journal({}kind, fired_at_ms, decisions) VALUES "
        tx.execute(insert.format("seq, ") + "(?, 'v2', 1, '[]')", (100,))
        return [
            tx.execute(insert.format("") + "('v2', 1, '[]') RETURNING seq").scalar()
            for _ in range(2)
        ]

    async with open_store(pg_url, state_dir=tmp_path) as store:
        assert await store.write(unit) == [101, 102]


async def test_memory_records_are_searchable_by_stem_and_scope(pg_url: str, tmp_path: Path) -> None:
    def unit(tx: Tx) -> list[tuple[str, ...]]:
        for rid, content, scope in [
            ("a", "The deployment failed twice", "0tglobal"),
            ("b", "deploys are on Fridays", "0tproject 0pabc 0xdemoted"),
            ("c", "lunch menu", "0tglobal"),
        ]:
            tx.execute(
                "INSERT INTO memory_records(id, tier, content, content_hash, scope,"
                " created_at_ms, updated_at_ms) VALUES (?, 'global', ?, 'h', ?, 1, 1)",
                (rid, content, scope),
            )
        query = "websearch_to_tsquery('english', ?)"
        return [
            tuple(
                r[0]
                for r in tx.execute(
                    f"SELECT id FROM memory_records WHERE search_vector @@ {query}"
                    f" AND scope_vector @@ ?::tsquery"
                    f" ORDER BY ts_rank_cd(search_vector, {query}) DESC, id",
                    (text, scope, text),
                )
            )
            for text, scope in [("deploying", "0tglobal | 0tproject"), ("deploy", "0pabc")]
        ]

    async with open_store(pg_url, state_dir=tmp_path) as store:
        assert await store.write(unit) == [("a", "b"), ("b",)]


async def test_sums_of_integers_read_as_numbers(pg_url: str, tmp_path: Path) -> None:
    def unit(tx: Tx) -> tuple[object, ...]:
        tx.executemany(
            "INSERT INTO kv(key, value, updated_at_ms) VALUES (?, '1', ?)", [("a", 1), ("b", 2)]
        )
        return tx.execute("SELECT sum(updated_at_ms), avg(updated_at_ms) FROM kv").fetchone()

    async with open_store(pg_url, state_dir=tmp_path) as store:
        total, mean = await store.write(unit)
    assert (total, mean) == (3, 1.5) and type(total) is int and type(mean) is float


def test_urls_are_shown_without_their_password() -> None:
    assert redacted("postgresql://u:s3cret@h:5432/db?sslmode=require") == (
        "postgresql://u:***@h:5432/db?sslmode=require"
    )
    assert redacted("postgres://h/db?user=u&password=s3cret") == (
        "postgres://h/db?user=u&password=***"
    )
    assert redacted("postgresql:///db") == "postgresql:///db"


async def test_postgres_scheme_opens_the_postgresql_store(
    pg_cluster: PgCluster, pg_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = pg_url.replace("postgresql://", "postgres://") + "?sslmode=disable"
    with caplog.at_level(logging.DEBUG):
        async with open_store(url, state_dir=tmp_path) as store:
            assert isinstance(store, PgStore) and store.kind == "postgresql"
            assert pg_cluster.password not in store.url
            with pytest.raises(PersistenceFailed):
                await store.write(lambda tx: tx.execute("SELECT * FROM no_such_table"))
    assert pg_cluster.password not in caplog.text
    assert not (tmp_path / "svc.db").exists()


async def test_an_unreachable_server_fails_without_showing_the_password(
    pg_cluster: PgCluster, tmp_path: Path
) -> None:
    wrong = pg_cluster.url().replace(pg_cluster.password, "not-the-password-x1")
    with pytest.raises(PersistenceFailed) as failure:
        async with open_store(wrong, state_dir=tmp_path):
            pass
    assert "not-the-password-x1" not in str(failure.value)
    assert "***" in str(failure.value)


async def test_an_unknown_scheme_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        async with open_store("mysql://h/db", state_dir=tmp_path):
            pass


async def test_one_round_trip_statements_keep_per_statement_failures(
    pg_url: str, tmp_path: Path
) -> None:
    """BEGIN and the statement's SAVEPOINT/RELEASE travel with the statement (one query);
    a failed statement still fails alone, and a unit of work that sends nothing begins
    no transaction."""
    from svc.store import IntegrityError

    def unit(tx: Tx) -> list[str]:
        tx.execute("INSERT INTO kv(key, value, updated_at_ms) VALUES ('a', '1', 1)")
        try:  # reaches the server and fails there: rolled back to its savepoint
            tx.execute("INSERT INTO kv(key, value, updated_at_ms) VALUES ('a', '2', 2)")
        except IntegrityError:
            pass
        try:  # never reaches the server (a value psycopg cannot adapt)
            tx.execute("INSERT INTO kv(key, value, updated_at_ms) VALUES (?, '3', 3)", (object(),))
        except psycopg.ProgrammingError:
            pass
        tx.execute("INSERT INTO kv(key, value, updated_at_ms) VALUES ('b', '4', 4) -- a comment")
        return [k for (k,) in tx.execute("SELECT key FROM kv ORDER BY key")]

    async with open_store(pg_url, state_dir=tmp_path) as store:
        assert await store.write(unit) == ["a", "b"]
        assert await store.write(lambda tx: None) is None
        assert await store.read(lambda tx: tx.execute("SELECT value FROM kv").fetchall()) == [
            ("1",),
            ("4",),
        ]


async def test_statements_sent_with_the_commit_commit_with_it_or_roll_it_back(
    pg_url: str, tmp_path: Path
) -> None:
    """``PgTx.send`` runs several statements in one round trip (BEGIN included) and
    ``PgTx.at_commit`` queues one to travel with the COMMIT: when it fails, nothing of
    the unit of work is committed and the connection serves the next one."""
    from svc.store.postgresql import PgTx

    def unit(tx: Tx, then: str) -> int:
        assert isinstance(tx, PgTx)
        count = tx.send(
            "INSERT INTO kv(key, value, updated_at_ms) VALUES ('c', '1', 1);"
            " SELECT count(*) FROM kv"
        ).fetchone()
        assert count is not None
        tx.at_commit(then)
        return int(count[0])

    async with open_store(pg_url, state_dir=tmp_path) as store:
        with pytest.raises(PersistenceFailed):
            await store.write(unit, "SELECT 1 / 0")
        assert await store.read(lambda tx: tx.execute("SELECT count(*) FROM kv").scalar()) == 0
        assert await store.write(unit, "SELECT pg_notify('svc_test', 'x')") == 1
        assert await store.read(lambda tx: tx.execute("SELECT key FROM kv").fetchall()) == [("c",)]


def _waiting_for_a_turn(tx: Tx) -> int:
    return int(
        tx.execute(
            "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        ).scalar(0)
    )


async def test_replicas_appending_to_the_audit_chain_take_turns(
    pg_url: str, tmp_path: Path
) -> None:
    from svc.audit import verify_chain
    from svc.audit.ledger import AuditEntry
    from svc.audit.repository import append_entries

    def entry(name: str) -> list[AuditEntry]:
        return [AuditEntry(name, "test.appended", "test", {"by": name}, 1)]

    appended, release = threading.Event(), threading.Event()

    def first(tx: Tx) -> list[AuditEntry]:
        # Appended, not yet committed: the other replica reads the chain's head now.
        stored = append_entries(tx, entry("a"))
        appended.set()
        release.wait(30)
        return stored

    async with (
        open_store(pg_url, state_dir=tmp_path / "one") as one,
        open_store(pg_url, state_dir=tmp_path / "two") as two,
    ):
        second_done = trio.Event()

        async def second() -> None:
            await two.write(append_entries, entry("b"))
            second_done.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(one.write, first)
            await trio.to_thread.run_sync(appended.wait)
            nursery.start_soon(second)
            # The second appender waits for the first's transaction (without the turn
            # it would chain onto the same head and finish at once: a fork). The server
            # tells no one when a session starts waiting for a lock: pg_locks is polled.
            while not second_done.is_set() and not await one.read(_waiting_for_a_turn):  # noqa: ASYNC110
                await trio.sleep(0.01)
            waited = not second_done.is_set()
            release.set()
        assert waited
        assert await one.read(verify_chain)
