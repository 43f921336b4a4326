"""A tiny key/value repository for engine-wide values."""

from __future__ import annotations

import json
from typing import Any

from .protocol import Store, Tx


class KeyValueRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    async def get(self, key: str, default: Any = None) -> Any:
        def q(tx: Tx) -> Any:
            value = tx.execute("SELECT value FROM kv WHERE key = ?", (key,)).scalar()
            return json.loads(value) if value is not None else default

        return await self._store.read(q)

    async def put(self, key: str, value: Any, *, now_ms: int) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO kv(key, value, updated_at_ms) VALUES (?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value, "
                "updated_at_ms = excluded.updated_at_ms",
                (key, json.dumps(value), now_ms),
            )

        await self._store.write(q)
