"""Small named values of the memory domain (the exchange recorder's cursor)."""

from __future__ import annotations

from typing import Any

from ..store import Store, Tx, dumps, loads


def get_state(tx: Tx, key: str) -> Any:
    """The value stored under ``key``, or None."""
    row = tx.execute("SELECT value FROM memory_state WHERE key = ?", (key,)).fetchone()
    return loads(row[0]) if row else None


def put_state(tx: Tx, key: str, value: Any, now_ms: int) -> None:
    """Store ``value`` (JSON) under ``key``, replacing what was there."""
    tx.execute(
        "INSERT INTO memory_state(key, value, updated_at_ms) VALUES (?, ?, ?) "
        "ON CONFLICT(key) DO UPDATE "
        "SET value = excluded.value, updated_at_ms = excluded.updated_at_ms",
        (key, dumps(value), now_ms),
    )


class StateRepository:
    """The ``memory_state`` table."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def get(self, key: str) -> Any:
        return await self._db.read(get_state, key)

    async def put(self, key: str, value: Any, *, now_ms: int) -> None:
        await self._db.write(put_state, key, value, now_ms)


__all__ = ["StateRepository", "get_state", "put_state"]
