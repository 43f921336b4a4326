"""Memory records and their tags: writes, reads, listings and ranked search.

Every async method is one unit of work on the store (one transaction, one round
trip), so a put with its tags, index entry and audit entry commits together and
a search is one snapshot. The ``*_in`` methods are the same work on a
transaction another memory repository already holds (the importer's batches,
the exchange recorder's records with its cursor).

The full-text side is the :class:`~svc.memory.search_index_repository.SearchIndex` given
to the repository; this module keeps the record SQL, in the subset SQLite and
PostgreSQL share.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..store import Store, Tx, dumps, loads
from .audit_repository import append_audit
from .factory import normalize_tags
from .query import scope_text, score_from_bm25, terms
from .search_index_repository import IndexEntry, IndexQuery, Ranked, RowCheck, SearchIndex

# The record shapes are imported by the first read or write of a record: start-up on a fresh
# store reads and writes only the recorder's cursor (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .records import AuditEntry, MemoryRecord, MemoryScope, SearchHit

PREFIX_MIN_CHARS = 3
"""Shortest word tried as a term prefix when whole terms found nothing."""

_COLS = (
    "id, tier, org_id, workspace_id, project_id, session_id, run_id, user_id, kind, "
    "source_type, classification, content, tags, metadata, artifact_refs, provenance, "
    "visibility, demoted, source_key, chunk_index, content_hash, created_at_ms, updated_at_ms"
)
_R_COLS = ", ".join(f"r.{c.strip()}" for c in _COLS.split(","))
_INSERT = f"INSERT INTO memory_records({_COLS}, scope) VALUES ({','.join('?' * 24)})"
_INSERT_TAG = "INSERT INTO memory_tags(tag, record_seq) VALUES (?, ?) ON CONFLICT DO NOTHING"


def _records(rows: Iterable[Sequence[Any]]) -> list[MemoryRecord]:
    """Rows that start with the columns of ``_COLS``, as records."""
    from .records import MemoryRecord

    return [
        MemoryRecord(
            id=row[0],
            tier=row[1],
            org_id=row[2],
            workspace_id=row[3],
            project_id=row[4],
            session_id=row[5],
            run_id=row[6],
            user_id=row[7],
            kind=row[8],
            source_type=row[9],
            classification=row[10],
            content=row[11],
            tags=tuple(loads(row[12], [])),
            metadata=loads(row[13], {}),
            artifact_refs=tuple(loads(row[14], [])),
            provenance=loads(row[15], {}),
            visibility=row[16],
            demoted=bool(row[17]),
            source_key=row[18],
            chunk_index=row[19],
            content_hash=row[20],
            created_at_ms=row[21],
            updated_at_ms=row[22],
        )
        for row in rows
    ]


def _scope_of(record: MemoryRecord) -> str:
    return scope_text(
        tier=record.tier,
        project_id=record.project_id,
        session_id=record.session_id,
        run_id=record.run_id,
        demoted=record.demoted,
    )


def _row(r: MemoryRecord, scope: str) -> tuple[Any, ...]:
    return (
        r.id,
        r.tier,
        r.org_id,
        r.workspace_id,
        r.project_id,
        r.session_id,
        r.run_id,
        r.user_id,
        r.kind,
        r.source_type,
        r.classification,
        r.content,
        dumps(list(r.tags)),
        dumps(dict(r.metadata)),
        dumps(list(r.artifact_refs)),
        dumps(dict(r.provenance)),
        r.visibility,
        int(r.demoted),
        r.source_key,
        r.chunk_index,
        r.content_hash,
        r.created_at_ms,
        r.updated_at_ms,
        scope,
    )


def _scope_sql(scope: MemoryScope) -> tuple[list[str], list[Any]]:
    """Conditions on ``r`` for the scope's partition and clauses."""
    clauses: list[str] = []
    params: list[Any] = []
    if scope.org_id is not None:
        clauses.append("r.org_id = ?")
        params.append(scope.org_id)
    if scope.workspace_id is not None:
        clauses.append("r.workspace_id = ?")
        params.append(scope.workspace_id)
    clauses.extend(_classification_sql(scope, params))
    if scope.clauses is not None:
        alternatives: list[str] = []
        for c in scope.clauses:
            if c.tier == "global" or c.whole_tier:
                alternatives.append("r.tier = ?")
                params.append(c.tier)
            elif c.tier == "project":
                alternatives.append("(r.tier = 'project' AND r.project_id = ?)")
                params.append(c.project_id)
            elif c.session_id is not None:
                alternatives.append("(r.tier = 'session' AND r.session_id = ?)")
                params.append(c.session_id)
            elif c.run_id is not None:
                alternatives.append(
                    "(r.tier = 'session' AND r.session_id IS NULL AND r.run_id = ?)"
                )
                params.append(c.run_id)
        # No clause at all: the scope sees nothing (never "everything").
        clauses.append("(" + " OR ".join(alternatives) + ")" if alternatives else "FALSE")
    return clauses, params


def _classification_sql(scope: MemoryScope, params: list[Any]) -> list[str]:
    """The condition limiting ``r`` to the scope's data classes (none: no condition)."""
    if scope.classifications is None:
        return []
    if not scope.classifications:
        return ["FALSE"]
    params.extend(scope.classifications)
    return [f"r.classification IN ({','.join('?' * len(scope.classifications))})"]


def _filter_sql(tags: Sequence[str], kinds: Sequence[str]) -> tuple[list[str], list[Any]]:
    """Conditions on ``r``: carries every tag, is one of the kinds."""
    clauses = [
        "EXISTS (SELECT 1 FROM memory_tags t WHERE t.record_seq = r.seq AND t.tag = ?)"
    ] * len(tags)
    params: list[Any] = list(tags)
    if kinds:
        clauses.append(f"r.kind IN ({','.join('?' * len(kinds))})")
        params.extend(kinds)
    return clauses, params


class RecordRepository:
    """The ``memory_records`` and ``memory_tags`` tables, searched through ``index``."""

    def __init__(self, db: Store, index: SearchIndex) -> None:
        self._db = db
        self._index = index

    # ------------------------------------------------------------------ in a held transaction
    def insert_in(
        self, tx: Tx, records: Sequence[MemoryRecord], *, ignore_existing: bool = False
    ) -> int:
        """Insert records with their tags; returns how many were new.

        With ``ignore_existing`` a record whose ``(source_key, chunk_index)`` is
        already stored is skipped (re-processing an exchange is harmless).
        """
        sql = (_INSERT + " ON CONFLICT DO NOTHING" if ignore_existing else _INSERT) + (
            " RETURNING seq"
        )
        entries: list[IndexEntry] = []
        for r in records:
            scope = _scope_of(r)
            row = _row(r, scope)
            seq = tx.execute(sql, row).scalar()
            if seq is None:
                continue
            entries.append(IndexEntry(seq, r.content, row[12], scope))
            if r.tags:
                tx.executemany(_INSERT_TAG, [(tag, seq) for tag in r.tags])
        self._index.index(tx, entries)
        return len(entries)

    def delete_by_source_in(self, tx: Tx, source_keys: Sequence[str]) -> int:
        """Delete every record (all chunks) of these source keys; returns the count."""
        keys: list[int] = []
        for source_key in source_keys:
            keys.extend(
                seq
                for (seq,) in tx.execute(
                    "DELETE FROM memory_records WHERE source_key = ? RETURNING seq", (source_key,)
                )
            )
        self._index.remove(tx, keys)
        return len(keys)

    # ------------------------------------------------------------------ writes
    async def insert(
        self,
        records: Sequence[MemoryRecord],
        *,
        audit: Sequence[AuditEntry] = (),
        ignore_existing: bool = False,
    ) -> int:
        def q(tx: Tx) -> int:
            count = self.insert_in(tx, records, ignore_existing=ignore_existing)
            for entry in audit:
                append_audit(tx, entry)
            return count

        return await self._db.write(q)

    async def delete(
        self, record_id: str, *, audit: AuditEntry | None = None
    ) -> MemoryRecord | None:
        """Delete a record; returns it, or None when there was none."""

        def q(tx: Tx) -> MemoryRecord | None:
            row = tx.execute(
                f"DELETE FROM memory_records WHERE id = ? RETURNING {_COLS}, seq", (record_id,)
            ).fetchone()
            if row is None:
                return None
            self._index.remove(tx, [row[-1]])
            if audit is not None:
                append_audit(tx, audit)
            return _records([row])[0]

        return await self._db.write(q)

    async def delete_session(self, session_id: str, *, audit: AuditEntry | None = None) -> int:
        """Delete the session-tier records of a session (its transcript is gone)."""

        def q(tx: Tx) -> int:
            keys = [
                seq
                for (seq,) in tx.execute(
                    "DELETE FROM memory_records WHERE tier = 'session' AND session_id = ? "
                    "RETURNING seq",
                    (session_id,),
                )
            ]
            self._index.remove(tx, keys)
            if audit is not None and keys:
                append_audit(tx, audit)
            return len(keys)

        return await self._db.write(q)

    async def set_demoted(
        self,
        record_id: str,
        *,
        demoted: bool,
        now_ms: int,
        audit: AuditEntry | None = None,
    ) -> MemoryRecord | None:
        def q(tx: Tx) -> MemoryRecord | None:
            row = tx.execute(
                f"SELECT {_COLS}, seq FROM memory_records WHERE id = ?", (record_id,)
            ).fetchone()
            if row is None:
                return None
            record = attrs.evolve(
                _records([row])[0],
                demoted=demoted,
                visibility="private" if demoted else "shared",
                updated_at_ms=now_ms,
            )
            scope = _scope_of(record)
            tx.execute(
                "UPDATE memory_records SET demoted = ?, visibility = ?, updated_at_ms = ?, "
                "scope = ? WHERE id = ?",
                (int(demoted), record.visibility, now_ms, scope, record_id),
            )
            self._index.index(tx, [IndexEntry(row[-1], record.content, row[12], scope)])
            if audit is not None:
                append_audit(tx, audit)
            return record

        return await self._db.write(q)

    # ------------------------------------------------------------------ reads
    async def get(self, record_id: str) -> MemoryRecord | None:
        def q(tx: Tx) -> MemoryRecord | None:
            row = tx.execute(
                f"SELECT {_COLS} FROM memory_records WHERE id = ?", (record_id,)
            ).fetchone()
            return _records([row])[0] if row else None

        return await self._db.read(q)

    async def count(self) -> int:
        return await self._db.read(_count)

    async def page(
        self,
        scope: MemoryScope,
        *,
        text: str | None = None,
        tags: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 100,
        offset: int = 0,
    ) -> tuple[list[MemoryRecord], int]:
        """Records newest first (``text`` narrows to full-text matches);
        and how many match in all."""
        wanted = normalize_tags(tags)
        words = terms(text) if text else []
        if text and not words:
            return [], 0

        def q(tx: Tx) -> tuple[list[MemoryRecord], int]:
            clauses, params = _scope_sql(scope)
            more, more_params = _filter_sql(wanted, kinds)
            clauses += more
            params += more_params
            if words:
                match = self._index.matching(IndexQuery(tuple(words)))
                clauses.append(match.sql)
                params.extend(match.params)
            where = " AND ".join(clauses) or "TRUE"
            total = tx.execute(
                f"SELECT count(*) FROM memory_records r WHERE {where}", params
            ).scalar(0)
            rows = tx.execute(
                f"SELECT {_R_COLS} FROM memory_records r WHERE {where} "
                "ORDER BY r.created_at_ms DESC, r.seq DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            )
            return _records(rows), int(total)

        return await self._db.read(q)

    async def search(
        self,
        text: str,
        scope: MemoryScope,
        *,
        tags: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 8,
    ) -> list[SearchHit]:
        """The best ``limit`` records for ``text``; whole terms first, then term prefixes."""
        words = terms(text)
        if not words:
            return []
        clauses: list[str] = []
        params: list[Any] = []
        # The index confines matches to the scope's clauses; the partition, data
        # classes, tags and kinds are checked on the record rows.
        if scope.org_id is not None:
            clauses.append("r.org_id = ?")
            params.append(scope.org_id)
        if scope.workspace_id is not None:
            clauses.append("r.workspace_id = ?")
            params.append(scope.workspace_id)
        clauses.extend(_classification_sql(scope, params))
        more, more_params = _filter_sql(normalize_tags(tags), kinds)
        check = (
            RowCheck(" AND ".join(clauses + more), (*params, *more_params))
            if clauses or more
            else None
        )
        whole = IndexQuery(tuple(words), clauses=scope.clauses)
        # Nothing matched whole terms: try them as prefixes ("rotat" finds "rotation").
        prefixable = tuple(w for w in words if len(w) >= PREFIX_MIN_CHARS)
        prefixes = attrs.evolve(whole, words=prefixable, prefix=True) if prefixable else None
        return await self._db.read(self._search, whole, prefixes, check, limit)

    def _search(
        self,
        tx: Tx,
        whole: IndexQuery,
        prefixes: IndexQuery | None,
        check: RowCheck | None,
        limit: int,
    ) -> list[SearchHit]:
        best = self._index.ranked(tx, whole, check=check, limit=limit)
        if not best and prefixes is not None:
            best = self._index.ranked(tx, prefixes, check=check, limit=limit)
        return _hits(tx, best)


def _hits(tx: Tx, best: Sequence[Ranked]) -> list[SearchHit]:
    """The ranked records, read by key, best first."""
    if not best:
        return []
    from .records import SearchHit

    rows = list(
        tx.execute(
            f"SELECT {_COLS}, seq FROM memory_records WHERE seq IN ({','.join('?' * len(best))})",
            [key for _, key in best],
        )
    )
    records = {row[-1]: record for row, record in zip(rows, _records(rows), strict=True)}
    return [
        SearchHit(records[key], score_from_bm25(raw), raw) for raw, key in best if key in records
    ]


def _count(tx: Tx) -> int:
    return int(tx.execute("SELECT count(*) FROM memory_records").scalar(0))


__all__ = ["PREFIX_MIN_CHARS", "RecordRepository"]
