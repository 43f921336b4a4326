"""A tiny key/value repository for engine-wide values."""

from __future__ import annotations

import json
from typing import Any

import apsw

from ._database import Database


class KeyValueRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str, default: Any = None) -> Any:
        def q(conn: apsw.Connection) -> Any:
            row = conn.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
            return json.loads(row[0]) if row else default

        return await self._db.read(q)

    async def put(self, key: str, value: Any, *, now_ms: int) -> None:
        def q(conn: apsw.Connection) -> None:
            conn.execute(
                "INSERT INTO kv(key, value, updated_at_ms) VALUES (?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms",
                (key, json.dumps(value), now_ms),
            )

        await self._db.write(q)
