"""Numbered SQLite migrations, each applied in one transaction at start-up.

Migrations are per backend: SQLite's live in
``svc/store/migrations/sqlite/NNN_name.sql``. The applied ones are
recorded in ``schema_migrations``; a file is never edited once released: a
change is a new file with the next number.
"""

from __future__ import annotations

import re
import time
from importlib import resources

import apsw

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


def available_migrations() -> list[tuple[int, str, str]]:
    """``(version, name, sql)`` for every migration file, in order."""
    found = []
    for entry in resources.files("svc.store").joinpath("migrations", "sqlite").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), match.group(2), entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if len(versions) != len(set(versions)):
        raise RuntimeError(
            f"duplicate migration numbers in svc/store/migrations/sqlite: {versions}"
        )
    return found


def apply_migrations(conn: apsw.Connection) -> list[int]:
    """Apply every pending migration; return the versions applied."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)"
    )
    applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    done = []
    for version, name, sql in available_migrations():
        if version in applied:
            continue
        with conn:  # one transaction per migration: all of it or none of it
            conn.execute(sql)
            conn.execute(
                "INSERT INTO schema_migrations(version, name, applied_at_ms) VALUES (?, ?, ?)",
                (version, name, time.time_ns() // 1_000_000),
            )
        done.append(version)
    return done
