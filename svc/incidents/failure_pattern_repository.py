"""Failure-pattern memory rows: one per repo and fingerprint (see ``failure_patterns``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..store import Store, Tx, dumps, loads
from .failure_patterns import PatternProbe, best_matches, pattern_of
from .records import Draft

SCANNED = 500
"""Newest patterns of a repo a report is scored against (plus the exact fingerprint)."""


def find_matches(tx: Tx, probe: PatternProbe) -> list[dict[str, Any]]:
    """The best matches of ``probe`` among its repo's patterns (run inside a caller's tx)."""
    rows = tx.execute(
        "SELECT doc FROM incident_failure_patterns WHERE repo = ? "
        "ORDER BY updated_at_ms DESC LIMIT ?",
        (probe.repo, SCANNED),
    ).fetchall()
    exact = tx.execute(
        "SELECT doc FROM incident_failure_patterns WHERE repo = ? AND fingerprint = ?",
        (probe.repo, probe.fingerprint),
    ).scalar()
    docs = {doc["pattern_id"]: doc for doc in (loads(r[0]) for r in rows)}
    if exact is not None:
        doc = loads(exact)
        docs[doc["pattern_id"]] = doc
    return best_matches(docs.values(), probe)


def _remember(tx: Tx, draft: Draft, now_ms: int) -> dict[str, Any]:
    raw = tx.execute(
        "SELECT doc FROM incident_failure_patterns WHERE repo = ? AND fingerprint = ?",
        (draft.repo, draft.fingerprint),
    ).scalar()
    pattern = pattern_of(draft, loads(raw) if raw is not None else None, now_ms)
    tx.execute(
        "INSERT INTO incident_failure_patterns(pattern_id, repo, fingerprint, recurrence_count, "
        "created_at_ms, updated_at_ms, doc) VALUES (?,?,?,?,?,?,?) "
        "ON CONFLICT (repo, fingerprint) DO UPDATE SET "
        "recurrence_count = excluded.recurrence_count, updated_at_ms = excluded.updated_at_ms, "
        "doc = excluded.doc",
        (
            pattern["pattern_id"],
            pattern["repo"],
            pattern["fingerprint"],
            pattern["recurrence_count"],
            pattern["created_at_ms"],
            pattern["updated_at_ms"],
            dumps(pattern),
        ),
    )
    return pattern


def _page(tx: Tx, repo: str | None, limit: int) -> list[dict[str, Any]]:
    where, params = ("WHERE repo = ?", (repo,)) if repo else ("", ())
    rows = tx.execute(
        f"SELECT doc FROM incident_failure_patterns {where} "
        "ORDER BY updated_at_ms DESC, pattern_id DESC LIMIT ?",
        (*params, limit),
    )
    return [loads(r[0]) for r in rows]


def _delete(tx: Tx, ids: Sequence[str]) -> int:
    deleted = 0
    for pattern_id in dict.fromkeys(ids):
        tx.execute("DELETE FROM incident_failure_patterns WHERE pattern_id = ?", (pattern_id,))
        deleted += tx.changes()
    return deleted


class FailurePatternRepository:
    def __init__(self, store: Store) -> None:
        self._db = store

    async def remember(self, draft: Draft, *, now_ms: int) -> dict[str, Any]:
        """Store (or merge into) the pattern of ``draft``'s repo and fingerprint."""
        return await self._db.write(_remember, draft, now_ms)

    async def matches(self, probe: PatternProbe) -> list[dict[str, Any]]:
        return await self._db.read(find_matches, probe)

    async def page(self, *, repo: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        return await self._db.read(_page, repo, limit)

    async def delete(self, ids: Sequence[str]) -> int:
        return await self._db.write(_delete, ids)
