"""Reassessment records, pending change triggers and evidence artifacts (migration 019)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..audit.ledger import AuditEntry
from ..audit.repository import append_entry
from ..store import Store, Tx, dumps, loads


def _add_record(tx: Tx, record: Mapping[str, Any], audit: AuditEntry) -> AuditEntry:
    tx.execute(
        "INSERT INTO incident_reassessments(record_id, scope_key, version, trigger_kind, "
        "generated_at_ms, doc) VALUES (?,?,?,?,?,?)",
        (
            record["record_id"],
            record["scope_key"],
            record["version"],
            record["trigger"],
            record["generated_at_ms"],
            dumps(dict(record)),
        ),
    )
    tx.execute(
        "DELETE FROM incident_reassessment_triggers WHERE scope_key = ?", (record["scope_key"],)
    )
    return append_entry(tx, audit)


def _latest(tx: Tx, scope_key: str) -> dict[str, Any] | None:
    raw = tx.execute(
        "SELECT doc FROM incident_reassessments WHERE scope_key = ? ORDER BY version DESC LIMIT 1",
        (scope_key,),
    ).scalar()
    return loads(raw) if raw is not None else None


def _records(tx: Tx, limit: int) -> list[dict[str, Any]]:
    rows = tx.execute(
        "SELECT doc FROM incident_reassessments ORDER BY generated_at_ms DESC, version DESC "
        "LIMIT ?",
        (limit,),
    )
    return [loads(r[0]) for r in rows]


def _schedule_rows(tx: Tx) -> list[tuple[str, int, int]]:
    rows = tx.execute(
        "SELECT scope_key, MAX(generated_at_ms), MAX(version) FROM incident_reassessments "
        "GROUP BY scope_key"
    )
    return [(r[0], r[1], r[2]) for r in rows]


def _count(tx: Tx) -> int:
    return int(tx.execute("SELECT COUNT(*) FROM incident_reassessments").scalar(0))


def _queue(
    tx: Tx, scope_key: str, kind: str, detail: str | None, now_ms: int, audit: AuditEntry
) -> AuditEntry | None:
    """Queue one trigger per scope: a scope already pending keeps its first trigger."""
    tx.execute(
        "INSERT INTO incident_reassessment_triggers(scope_key, trigger_kind, detail, queued_at_ms) "
        "VALUES (?,?,?,?) ON CONFLICT (scope_key) DO NOTHING",
        (scope_key, kind, detail, now_ms),
    )
    return append_entry(tx, audit) if tx.changes() else None


def _pending(tx: Tx) -> list[tuple[str, str, str | None, int]]:
    rows = tx.execute(
        "SELECT scope_key, trigger_kind, detail, queued_at_ms FROM incident_reassessment_triggers "
        "ORDER BY queued_at_ms"
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def _add_artifact(
    tx: Tx, artifact: Mapping[str, Any], doc: Mapping[str, Any], audit: AuditEntry
) -> AuditEntry:
    tx.execute(
        "INSERT INTO incident_evidence_artifacts(artifact_id, context_run_id, artifact_type, "
        "path, created_at_ms, doc) VALUES (?,?,?,?,?,?)",
        (
            artifact["artifact_id"],
            artifact["context_run_id"],
            artifact["artifact_type"],
            artifact["path"],
            artifact["created_at_ms"],
            dumps(dict(doc)),
        ),
    )
    return append_entry(tx, audit)


_ARTIFACT_COLUMNS = "artifact_id, context_run_id, artifact_type, path, created_at_ms"


def _artifacts(tx: Tx, limit: int) -> list[dict[str, Any]]:
    rows = tx.execute(
        f"SELECT {_ARTIFACT_COLUMNS} FROM incident_evidence_artifacts "
        "ORDER BY created_at_ms DESC, artifact_id LIMIT ?",
        (limit,),
    )
    return [dict(zip(_ARTIFACT_COLUMNS.split(", "), r, strict=True)) for r in rows]


def _artifact(tx: Tx, context_run_id: str) -> dict[str, Any] | None:
    row = tx.execute(
        f"SELECT {_ARTIFACT_COLUMNS}, doc FROM incident_evidence_artifacts "
        "WHERE context_run_id = ?",
        (context_run_id,),
    ).fetchone()
    if row is None:
        return None
    meta = dict(zip(_ARTIFACT_COLUMNS.split(", "), row[:5], strict=True))
    return {**meta, "content": loads(row[5])}


class SecurityRepository:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def add_record(self, record: Mapping[str, Any], audit: AuditEntry) -> AuditEntry:
        stored: AuditEntry = await self.store.write(_add_record, record, audit)
        return stored

    async def latest(self, scope_key: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = await self.store.read(_latest, scope_key)
        return found

    async def records(self, limit: int = 50) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self.store.read(_records, limit)
        return found

    async def count(self) -> int:
        total: int = await self.store.read(_count)
        return total

    async def schedule_rows(self) -> list[tuple[str, int, int]]:
        """(scope_key, last generated_at_ms, last version) per scope."""
        found: list[tuple[str, int, int]] = await self.store.read(_schedule_rows)
        return found

    async def queue(
        self, scope_key: str, kind: str, detail: str | None, *, now_ms: int, audit: AuditEntry
    ) -> AuditEntry | None:
        stored: AuditEntry | None = await self.store.write(
            _queue, scope_key, kind, detail, now_ms, audit
        )
        return stored

    async def pending(self) -> list[tuple[str, str, str | None, int]]:
        found: list[tuple[str, str, str | None, int]] = await self.store.read(_pending)
        return found

    async def add_artifact(
        self, artifact: Mapping[str, Any], doc: Mapping[str, Any], audit: AuditEntry
    ) -> AuditEntry:
        stored: AuditEntry = await self.store.write(_add_artifact, artifact, doc, audit)
        return stored

    async def artifacts(self, limit: int = 50) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self.store.read(_artifacts, limit)
        return found

    async def artifact(self, context_run_id: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = await self.store.read(_artifact, context_run_id)
        return found
