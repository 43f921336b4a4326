"""Drafts and incidents: de-duplicating upserts (reference §1.11), pages, deletes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import attrs

from ..audit.ledger import AuditEntry
from ..audit.repository import append_entries
from ..store import Store, Tx, dumps, loads
from .failure_pattern_repository import find_matches
from .failure_patterns import PatternProbe
from .post_repository import by_keys, save_post
from .records import DRAFT_LISTS, Draft, Incident, Post

P = TypeVar("P")

MERGED_LISTS = ("evidence_refs", "external_correlation_ids", "route_tags")


def merge_occurrence(
    existing: dict[str, Any], fresh: dict[str, Any], now_ms: int
) -> dict[str, Any]:
    """One more occurrence of a known failure: count it, fill what was missing, merge refs."""
    merged = dict(existing)
    for key, value in fresh.items():
        if merged.get(key) in (None, "", []) and value not in (None, "", []):
            merged[key] = value
    for key in MERGED_LISTS:
        merged[key] = list(dict.fromkeys([*(existing.get(key) or []), *(fresh.get(key) or [])]))[
            :50
        ]
    merged["occurrence_count"] = int(existing.get("occurrence_count") or 1) + 1
    merged["last_seen_at_ms"] = now_ms
    merged["updated_at_ms"] = now_ms
    return merged


def _upsert_draft(tx: Tx, draft: Draft, now_ms: int) -> tuple[Draft, bool]:
    row = tx.execute(
        "SELECT doc FROM incident_drafts WHERE dedup_key = ?", (draft.dedup_key,)
    ).fetchone()
    if row is None:
        _insert_draft(tx, draft)
        return draft, True
    merged = Draft(merge_occurrence(loads(row[0]), draft.to_wire(), now_ms))
    _update_draft(tx, merged)
    return merged, False


def _insert_draft(tx: Tx, draft: Draft) -> None:
    tx.execute(
        "INSERT INTO incident_drafts(draft_id, dedup_key, fingerprint, status, created_at_ms, "
        "updated_at_ms, doc) VALUES (?,?,?,?,?,?,?)",
        (
            draft.draft_id,
            draft.dedup_key,
            draft.fingerprint,
            draft.status,
            draft.created_at_ms,
            draft.updated_at_ms,
            dumps(draft.to_wire()),
        ),
    )


def _update_draft(tx: Tx, draft: Draft) -> None:
    tx.execute(
        "UPDATE incident_drafts SET status = ?, updated_at_ms = ?, doc = ? WHERE draft_id = ?",
        (draft.status, draft.updated_at_ms, dumps(draft.to_wire()), draft.draft_id),
    )


def _upsert_incident(tx: Tx, incident: Incident, now_ms: int) -> tuple[Incident, bool]:
    row = tx.execute(
        "SELECT doc FROM incident_records WHERE dedup_key = ?", (incident.dedup_key,)
    ).fetchone()
    if row is None:
        _insert_incident(tx, incident)
        return incident, True
    merged = Incident(merge_occurrence(loads(row[0]), incident.to_wire(), now_ms))
    _update_incident(tx, merged)
    return merged, False


def _insert_incident(tx: Tx, incident: Incident) -> None:
    tx.execute(
        "INSERT INTO incident_records(incident_id, dedup_key, fingerprint, status, draft_id, "
        "created_at_ms, updated_at_ms, doc) VALUES (?,?,?,?,?,?,?,?)",
        (
            incident.incident_id,
            incident.dedup_key,
            incident.fingerprint,
            incident.status,
            incident.draft_id,
            incident.created_at_ms,
            incident.updated_at_ms,
            dumps(incident.to_wire()),
        ),
    )


def _update_incident(tx: Tx, incident: Incident) -> None:
    tx.execute(
        "UPDATE incident_records SET status = ?, draft_id = ?, updated_at_ms = ?, doc = ? "
        "WHERE incident_id = ?",
        (
            incident.status,
            incident.draft_id,
            incident.updated_at_ms,
            dumps(incident.to_wire()),
            incident.incident_id,
        ),
    )


def _record(
    tx: Tx, draft: Draft | None, incident: Incident | None, now_ms: int
) -> tuple[Draft | None, bool, Incident | None, bool]:
    """A draft and its incident in one transaction; the incident points at the draft."""
    stored_draft, draft_created = _upsert_draft(tx, draft, now_ms) if draft else (None, False)
    stored_incident, incident_created = (None, False)
    if incident is not None:
        if stored_draft is not None:
            incident = incident.evolve(draft_id=stored_draft.draft_id)
        stored_incident, incident_created = _upsert_incident(tx, incident, now_ms)
        if stored_draft is not None and stored_incident.draft_id != stored_draft.draft_id:
            stored_incident = stored_incident.evolve(draft_id=stored_draft.draft_id)
            _update_incident(tx, stored_incident)
    return stored_draft, draft_created, stored_incident, incident_created


@attrs.frozen
class Recorded:
    """What :meth:`DraftRepository.record_unless_known` stored (or why it stored no draft)."""

    draft: Draft | None
    created: bool
    incident: Incident | None
    incident_created: bool
    known_matches: list[dict[str, Any]] = attrs.field(factory=list)
    """Failure patterns the report matched: when non-empty, no draft was stored."""


def _record_unless_known(
    tx: Tx, draft: Draft, incident: Incident | None, now_ms: int, probe: PatternProbe
) -> Recorded:
    # The pattern check and the draft upsert share one transaction: one store call per
    # report, and no pattern remembered in between can be missed.
    matches = find_matches(tx, probe)
    if not matches:
        return Recorded(*_record(tx, draft, incident, now_ms))
    stored_incident, incident_created = None, False
    if incident is not None:
        from .failure_patterns import duplicate_summary

        suppressed = incident.evolve(
            status="duplicate_suppressed",
            duplicate_summary=duplicate_summary(matches),
            duplicate_matches=matches,
        )
        stored_incident, incident_created = _upsert_incident(tx, suppressed, now_ms)
        if not incident_created:
            stored_incident = stored_incident.evolve(
                status="duplicate_suppressed", duplicate_summary=duplicate_summary(matches)
            )
            _update_incident(tx, stored_incident)
    return Recorded(None, False, stored_incident, incident_created, matches)


def _save_outcome(
    tx: Tx,
    draft: Draft,
    incident: Incident | None,
    posts: Sequence[Post],
    audits: Sequence[AuditEntry],
) -> list[AuditEntry]:
    _update_draft(tx, draft)
    if incident is not None:
        _update_incident(tx, incident)
    for post in posts:
        save_post(tx, post)
    return append_entries(tx, audits)


@attrs.frozen
class PublishInputs(Generic[P]):
    """What a publish reads, in one snapshot: the draft, its incident, its plan, receipts."""

    draft: Draft
    incident: Incident | None
    plan: P
    earlier: dict[str, list[Post]]
    """Receipts by the idempotency keys the plan named."""


def _publish_inputs(
    tx: Tx,
    draft_id: str,
    plan_of: Callable[[Draft, Incident | None], tuple[P, Sequence[str]]],
) -> PublishInputs[P] | None:
    # The draft and its newest incident in one statement (one round trip into SQLite or
    # to the PostgreSQL server instead of two).
    row = tx.execute(
        "SELECT d.doc, (SELECT r.doc FROM incident_records r WHERE r.draft_id = d.draft_id "
        "ORDER BY r.updated_at_ms DESC LIMIT 1) FROM incident_drafts d WHERE d.draft_id = ?",
        (draft_id,),
    ).fetchone()
    if row is None:
        return None
    draft = Draft(loads(row[0]))
    incident = Incident(loads(row[1])) if row[1] is not None else None
    # The plan (routing, digests, keys) is pure; computing it here lets the receipts of
    # its keys be read in the same snapshot as the draft, in one store call.
    plan, keys = plan_of(draft, incident)
    return PublishInputs(draft, incident, plan, by_keys(tx, keys))


def _get_draft(tx: Tx, draft_id: str) -> Draft | None:
    raw = tx.execute("SELECT doc FROM incident_drafts WHERE draft_id = ?", (draft_id,)).scalar()
    return Draft(loads(raw)) if raw is not None else None


def _get_incident(tx: Tx, incident_id: str) -> Incident | None:
    raw = tx.execute(
        "SELECT doc FROM incident_records WHERE incident_id = ?", (incident_id,)
    ).scalar()
    return Incident(loads(raw)) if raw is not None else None


def _incident_of_draft(tx: Tx, draft_id: str) -> Incident | None:
    raw = tx.execute(
        "SELECT doc FROM incident_records WHERE draft_id = ? ORDER BY updated_at_ms DESC LIMIT 1",
        (draft_id,),
    ).scalar()
    return Incident(loads(raw)) if raw is not None else None


def _drafts(tx: Tx, limit: int, status: str | None) -> list[Draft]:
    where, params = ("WHERE status = ?", (status,)) if status else ("", ())
    rows = tx.execute(
        f"SELECT doc FROM incident_drafts {where} "
        "ORDER BY created_at_ms DESC, draft_id DESC LIMIT ?",
        (*params, limit),
    )
    return [Draft(loads(r[0])) for r in rows]


def _incidents(tx: Tx, limit: int) -> list[Incident]:
    rows = tx.execute(
        "SELECT doc FROM incident_records ORDER BY updated_at_ms DESC, incident_id DESC LIMIT ?",
        (limit,),
    )
    return [Incident(loads(r[0])) for r in rows]


def _count(tx: Tx, table: str, status: Sequence[str] | None) -> int:
    if not status:
        return int(tx.execute(f"SELECT COUNT(*) FROM {table}").scalar(0))
    marks = ",".join("?" for _ in status)
    return int(
        tx.execute(f"SELECT COUNT(*) FROM {table} WHERE status IN ({marks})", tuple(status)).scalar(
            0
        )
    )


def _delete(tx: Tx, table: str, column: str, ids: Sequence[str] | None) -> int:
    if ids is None:
        tx.execute(f"DELETE FROM {table}")
        return tx.changes()
    deleted = 0
    for i in dict.fromkeys(ids):
        tx.execute(f"DELETE FROM {table} WHERE {column} = ?", (i,))
        deleted += tx.changes()
    return deleted


def _prune_incidents(tx: Tx, before_ms: int) -> int:
    tx.execute("DELETE FROM incident_records WHERE updated_at_ms < ?", (before_ms,))
    return tx.changes()


def _log_incident(tx: Tx, project_id: str, source_id: str) -> Incident | None:
    rows = tx.execute(
        "SELECT doc FROM incident_records ORDER BY updated_at_ms DESC, incident_id DESC LIMIT 500"
    )
    for (raw,) in rows:
        doc = loads(raw)
        payload = doc.get("event_payload") or {}
        if (
            doc.get("project_id") == project_id
            and doc.get("log_source_id") == source_id
            and isinstance(payload.get("offset_start"), int)
            and isinstance(payload.get("offset_end"), int)
        ):
            return Incident(doc)
    return None


class DraftRepository:
    """Drafts and incidents share one repository: they are written together."""

    def __init__(self, store: Store) -> None:
        self._db = store

    async def record(
        self, draft: Draft | None, incident: Incident | None, *, now_ms: int
    ) -> tuple[Draft | None, bool, Incident | None, bool]:
        """Upsert (de-duplicated) a draft and/or its incident.

        Returns (draft, draft created, incident, incident created).
        """
        return await self._db.write(_record, draft, incident, now_ms)

    async def record_unless_known(
        self, draft: Draft, incident: Incident | None, *, now_ms: int, probe: PatternProbe
    ) -> Recorded:
        """:meth:`record`, unless the report matches a remembered failure pattern.

        A match stores no draft; a runtime incident is kept as ``duplicate_suppressed``.
        """
        return await self._db.write(_record_unless_known, draft, incident, now_ms, probe)

    async def draft(self, draft_id: str) -> Draft | None:
        return await self._db.read(_get_draft, draft_id)

    async def save_draft(self, draft: Draft) -> None:
        await self._db.write(_update_draft, draft)

    async def drafts(self, *, limit: int = 50, status: str | None = None) -> list[Draft]:
        return await self._db.read(_drafts, limit, status)

    async def incident(self, incident_id: str) -> Incident | None:
        return await self._db.read(_get_incident, incident_id)

    async def incident_of_draft(self, draft_id: str) -> Incident | None:
        return await self._db.read(_incident_of_draft, draft_id)

    async def save_outcome(
        self,
        draft: Draft,
        incident: Incident | None,
        *,
        posts: Sequence[Post] = (),
        audits: Sequence[AuditEntry] = (),
    ) -> list[AuditEntry]:
        """A publish's end state in one transaction: the draft, its incident, the last
        receipts and the audit rows not yet written. Returns the stored audit rows."""
        return await self._db.write(_save_outcome, draft, incident, list(posts), list(audits))

    async def publish_inputs(
        self,
        draft_id: str,
        plan_of: Callable[[Draft, Incident | None], tuple[P, Sequence[str]]],
    ) -> PublishInputs[P] | None:
        """The draft, its incident, ``plan_of(draft, incident)``'s plan and the receipts of
        the idempotency keys it names, from one snapshot (``None``: no such draft)."""
        return await self._db.read(_publish_inputs, draft_id, plan_of)

    async def save_incident(self, incident: Incident) -> None:
        await self._db.write(_update_incident, incident)

    async def incidents(self, *, limit: int = 50) -> list[Incident]:
        return await self._db.read(_incidents, limit)

    async def latest_log_incident(self, project_id: str, source_id: str) -> Incident | None:
        return await self._db.read(_log_incident, project_id, source_id)

    async def count_drafts(self, *statuses: str) -> int:
        return await self._db.read(_count, "incident_drafts", statuses)

    async def count_incidents(self, *statuses: str) -> int:
        return await self._db.read(_count, "incident_records", statuses)

    async def delete_drafts(self, ids: Sequence[str] | None) -> int:
        """``None`` deletes every draft."""
        return await self._db.write(_delete, "incident_drafts", "draft_id", ids)

    async def delete_incidents(self, ids: Sequence[str] | None) -> int:
        return await self._db.write(_delete, "incident_records", "incident_id", ids)

    async def prune_incidents(self, before_ms: int) -> int:
        return await self._db.write(_prune_incidents, before_ms)


__all__ = ["DRAFT_LISTS", "DraftRepository", "PublishInputs", "Recorded", "merge_occurrence"]
