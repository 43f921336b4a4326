"""Scoped intake keys: stored as SHA-256 hashes, never as the key."""

from __future__ import annotations

from ..audit.ledger import AuditEntry
from ..audit.repository import append_entry
from ..store import Row, Store, Tx, dumps, loads
from .records import IntakeKey

_COLUMNS = "key_id, project_id, name, key_hash, enabled, scopes, created_at_ms, last_used_at_ms"


def _key(r: Row) -> IntakeKey:
    return IntakeKey(
        key_id=r[0],
        project_id=r[1],
        name=r[2],
        key_hash=r[3],
        enabled=bool(r[4]),
        scopes=tuple(loads(r[5], [])),
        created_at_ms=r[6],
        last_used_at_ms=r[7],
    )


def _insert(tx: Tx, key: IntakeKey, audit: AuditEntry) -> AuditEntry:
    tx.execute(
        f"INSERT INTO incident_intake_keys({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)",
        (
            key.key_id,
            key.project_id,
            key.name,
            key.key_hash,
            1 if key.enabled else 0,
            dumps(list(key.scopes)),
            key.created_at_ms,
            key.last_used_at_ms,
        ),
    )
    return append_entry(tx, audit)


def _all(tx: Tx) -> list[IntakeKey]:
    rows = tx.execute(f"SELECT {_COLUMNS} FROM incident_intake_keys ORDER BY project_id, name")
    return [_key(r) for r in rows]


def _for_project(tx: Tx, project_id: str) -> list[IntakeKey]:
    rows = tx.execute(
        f"SELECT {_COLUMNS} FROM incident_intake_keys WHERE project_id = ? AND enabled = 1",
        (project_id,),
    )
    return [_key(r) for r in rows]


def _get(tx: Tx, key_id: str) -> IntakeKey | None:
    row = tx.execute(
        f"SELECT {_COLUMNS} FROM incident_intake_keys WHERE key_id = ?", (key_id,)
    ).fetchone()
    return _key(row) if row is not None else None


def _disable(tx: Tx, key_id: str, audit: AuditEntry) -> tuple[IntakeKey | None, AuditEntry | None]:
    tx.execute("UPDATE incident_intake_keys SET enabled = 0 WHERE key_id = ?", (key_id,))
    if not tx.changes():
        return None, None
    return _get(tx, key_id), append_entry(tx, audit)


def _touch(tx: Tx, key_id: str, now_ms: int) -> None:
    tx.execute(
        "UPDATE incident_intake_keys SET last_used_at_ms = ? WHERE key_id = ?", (now_ms, key_id)
    )


class IntakeKeyRepository:
    def __init__(self, store: Store) -> None:
        self._db = store

    async def insert(self, key: IntakeKey, *, audit: AuditEntry) -> AuditEntry:
        return await self._db.write(_insert, key, audit)

    async def all_keys(self) -> list[IntakeKey]:
        return await self._db.read(_all)

    async def enabled_for(self, project_id: str) -> list[IntakeKey]:
        return await self._db.read(_for_project, project_id)

    async def disable(
        self, key_id: str, *, audit: AuditEntry
    ) -> tuple[IntakeKey | None, AuditEntry | None]:
        return await self._db.write(_disable, key_id, audit)

    async def touch(self, key_id: str, now_ms: int) -> None:
        await self._db.write(_touch, key_id, now_ms)
