"""The monitor's configuration document and its small state (the runtime-failure cursor)."""

from __future__ import annotations

from typing import Any

from ..audit.ledger import AuditEntry
from ..audit.repository import append_entry
from ..store import Store, Tx, dumps, loads

_KEY = "incident_monitor"


def _get(tx: Tx) -> dict[str, Any] | None:
    raw = tx.execute("SELECT doc FROM incident_config WHERE id = ?", (_KEY,)).scalar()
    return loads(raw) if raw is not None else None


def _save(tx: Tx, doc: dict[str, Any], now_ms: int, audit: AuditEntry | None) -> AuditEntry | None:
    tx.execute(
        "INSERT INTO incident_config(id, doc, updated_at_ms) VALUES (?,?,?) "
        "ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, updated_at_ms = excluded.updated_at_ms",
        (_KEY, dumps(doc), now_ms),
    )
    return append_entry(tx, audit) if audit is not None else None


def _state(tx: Tx, key: str) -> str | None:
    value = tx.execute("SELECT value FROM incident_monitor_state WHERE key = ?", (key,)).scalar()
    return str(value) if value is not None else None


def _set_state(tx: Tx, key: str, value: str) -> None:
    tx.execute(
        "INSERT INTO incident_monitor_state(key, value) VALUES (?,?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


class ConfigRepository:
    def __init__(self, store: Store) -> None:
        self._db = store

    async def load(self) -> dict[str, Any] | None:
        return await self._db.read(_get)

    async def save(
        self, doc: dict[str, Any], *, now_ms: int, audit: AuditEntry | None = None
    ) -> AuditEntry | None:
        """Replace the document; the audit row commits with it."""
        return await self._db.write(_save, doc, now_ms, audit)

    async def state(self, key: str) -> str | None:
        return await self._db.read(_state, key)

    async def set_state(self, key: str, value: str) -> None:
        await self._db.write(_set_state, key, value)
