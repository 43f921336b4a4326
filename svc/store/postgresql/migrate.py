"""Numbered PostgreSQL migrations, applied once however many replicas start together.

PostgreSQL's live in ``svc/store/migrations/postgresql/NNN_name.sql``, one per
SQLite migration with the same number and name. The runner holds a
session-level advisory lock on a fixed key while it reads what was applied and
applies the rest, one transaction per migration recorded in
``schema_migrations``: replicas that start at the same moment queue on the
lock, and each finds the migrations the first one applied already recorded.
"""

from __future__ import annotations

import re
import time
from importlib import resources
from typing import Any

import psycopg

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")

# The advisory lock key of migrations ("svcm"). Advisory locks are per database,
# so engines on different databases of one server never wait for each other.
MIGRATION_LOCK_KEY = 0x7376636D


def available_migrations() -> list[tuple[int, str, str]]:
    """``(version, name, sql)`` for every migration file, in order."""
    found = []
    folder = resources.files("svc.store").joinpath("migrations", "postgresql")
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), match.group(2), entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if len(versions) != len(set(versions)):
        raise RuntimeError(
            f"duplicate migration numbers in svc/store/migrations/postgresql: {versions}"
        )
    return found


def apply_migrations(conn: psycopg.Connection[Any]) -> list[int]:
    """Apply every pending migration on an autocommit connection; return those applied."""
    # Waits for a replica that is migrating right now, however long it takes:
    # what follows must not start before that replica's migrations are recorded.
    conn.execute("SET lock_timeout = 0")
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)"
        )
        applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        done = []
        for version, name, sql in available_migrations():
            if version in applied:
                continue
            with conn.transaction():  # one transaction per migration: all of it or none
                conn.execute(sql)  # no parameters: psycopg sends the text as it is
                conn.execute(
                    "INSERT INTO schema_migrations(version, name, applied_at_ms)"
                    " VALUES (%s, %s, %s)",
                    (version, name, time.time_ns() // 1_000_000),
                )
            done.append(version)
        return done
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_KEY,))


__all__ = ["MIGRATION_LOCK_KEY", "apply_migrations", "available_migrations"]
