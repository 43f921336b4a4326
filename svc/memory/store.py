"""Memory records in SQLite: writes, FTS5 search ranked by bm25, listings, audit.

Every public method is one round trip to the database (``Database.read`` or
``Database.write``), so a put with its tags and audit entry is one transaction
and a search is one snapshot. The ``*_sync`` functions run on the database's
worker thread; the importer and the exchange recorder compose them into their
own transactions.

The full-text index (``memory_fts``, an external-content FTS5 table over
``content`` and ``tags``) is kept in step by triggers, so nothing here writes
to it directly.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import apsw
import attrs

from ..store import Store, dumps, loads
from .query import (
    bm25_function,
    fts_query,
    full_query,
    scope_query,
    scope_text,
    score_from_bm25,
    terms,
)

# The record shapes are imported by the first read or write of a record: start-up on a fresh
# store reads and writes only the recorder's cursor (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .records import AuditEntry, MemoryRecord, MemoryScope, NewRecord, SearchHit

RANK = "bm25(1.0, 0.5, 0.0)"
"""The index's own ranking, used to pick candidates: content, tags at half weight, scope never."""

WINDOW_PER_HIT = 2
MIN_WINDOW = 16
"""Candidates the index returns per wanted hit; they are re-scored (see svc.memory.query) and cut."""

_COLS = (
    "id, tier, org_id, workspace_id, project_id, session_id, run_id, user_id, kind, source_type, "
    "classification, content, tags, metadata, artifact_refs, provenance, visibility, demoted, source_key, "
    "chunk_index, content_hash, created_at_ms, updated_at_ms"
)
_R_COLS = ", ".join(f"r.{c.strip()}" for c in _COLS.split(","))
_INSERT = f"INSERT INTO memory_records({_COLS}, scope) VALUES ({','.join('?' * 24)})"


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


def _record(row: Sequence[Any]) -> MemoryRecord:
    [record] = _records([row])
    return record


def _scope_of(record: MemoryRecord) -> str:
    return scope_text(
        tier=record.tier,
        project_id=record.project_id,
        session_id=record.session_id,
        run_id=record.run_id,
        demoted=record.demoted,
    )


def normalize_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Trimmed, lower-cased, distinct, in order."""
    seen: dict[str, None] = {}
    for tag in tags:
        cleaned = tag.strip().lower()
        if cleaned:
            seen.setdefault(cleaned, None)
    return tuple(seen)


def build_record(new: NewRecord, *, now_ms: int, record_id: str | None = None) -> MemoryRecord:
    from .records import MemoryRecord

    return MemoryRecord(
        id=record_id or str(uuid.uuid4()),
        tier=new.tier,
        content=new.content,
        content_hash=content_hash(new.content),
        created_at_ms=now_ms,
        updated_at_ms=now_ms,
        org_id=new.org_id,
        workspace_id=new.workspace_id,
        project_id=new.project_id,
        session_id=new.session_id,
        run_id=new.run_id,
        user_id=new.user_id,
        kind=new.kind,
        source_type=new.source_type,
        classification=new.classification,
        tags=normalize_tags(new.tags),
        metadata=dict(new.metadata),
        artifact_refs=tuple(new.artifact_refs),
        provenance=dict(new.provenance),
        visibility=new.visibility,
        source_key=new.source_key,
        chunk_index=new.chunk_index,
    )


# ---------------------------------------------------------------------- worker-thread functions
def insert_sync(
    conn: apsw.Connection, records: Sequence[MemoryRecord], *, ignore_existing: bool = False
) -> int:
    """Insert records with their tags; returns how many were new.

    With ``ignore_existing`` a record whose ``(source_key, chunk_index)`` is
    already stored is skipped (re-processing an exchange is harmless).
    """
    sql = (_INSERT + " ON CONFLICT DO NOTHING" if ignore_existing else _INSERT) + " RETURNING seq"
    inserted = 0
    for r in records:
        seq = conn.execute(
            sql,
            (
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
                _scope_of(r),
            ),
        ).scalar()
        if seq is None:
            continue
        inserted += 1
        if r.tags:
            conn.executemany(
                "INSERT OR IGNORE INTO memory_tags(tag, record_seq) VALUES (?, ?)",
                [(tag, seq) for tag in r.tags],
            )
    return inserted


def audit_sync(conn: apsw.Connection, entry: AuditEntry) -> None:
    conn.execute(
        "INSERT INTO memory_audit(id, action, record_id, run_id, tier, actor, detail, created_at_ms) "
        "VALUES (?,?,?,?,?,?,?,?)",
        (
            entry.id,
            entry.action,
            entry.record_id,
            entry.run_id,
            entry.tier,
            entry.actor,
            dumps(dict(entry.detail)),
            entry.created_at_ms,
        ),
    )


def delete_by_source_sync(conn: apsw.Connection, source_keys: Sequence[str]) -> int:
    """Delete every record (all chunks) of these source keys; returns the count."""
    deleted = 0
    for key in source_keys:
        conn.execute("DELETE FROM memory_records WHERE source_key = ?", (key,))
        deleted += conn.changes()
    return deleted


def state_get_sync(conn: apsw.Connection, key: str) -> Any:
    row = conn.execute("SELECT value FROM memory_state WHERE key = ?", (key,)).fetchone()
    return loads(row[0]) if row else None


def state_put_sync(conn: apsw.Connection, key: str, value: Any, now_ms: int) -> None:
    conn.execute(
        "INSERT INTO memory_state(key, value, updated_at_ms) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE "
        "SET value = excluded.value, updated_at_ms = excluded.updated_at_ms",
        (key, dumps(value), now_ms),
    )


def _scope_sql(scope: MemoryScope) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if scope.org_id is not None:
        clauses.append("r.org_id = ?")
        params.append(scope.org_id)
    if scope.workspace_id is not None:
        clauses.append("r.workspace_id = ?")
        params.append(scope.workspace_id)
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
        clauses.append("(" + " OR ".join(alternatives) + ")" if alternatives else "0")
    return " AND ".join(clauses) or "1", params


def _tags_sql(tags: Sequence[str]) -> tuple[str, list[Any]]:
    if not tags:
        return "1", []
    parts = ["EXISTS (SELECT 1 FROM memory_tags t WHERE t.record_seq = r.seq AND t.tag = ?)"] * len(
        tags
    )
    return " AND ".join(parts), list(tags)


_tokenizers: weakref.WeakKeyDictionary[apsw.Connection, Any] = weakref.WeakKeyDictionary()
# Each connection runs on its own worker thread; the map they share is guarded.
_tokenizers_lock = threading.Lock()


def _tokenizer(conn: apsw.Connection) -> Any:
    """The index's tokenizer on this connection; registers ``svc_bm25`` there the first time."""
    conn = conn.connection  # the driver's own connection: FTS5 is SQLite's alone
    with _tokenizers_lock:
        tokenizer = _tokenizers.get(conn)
    if tokenizer is None:
        conn.register_fts5_function("svc_bm25", bm25_function)
        tokenizer = conn.fts5_tokenizer("porter", ["unicode61", "remove_diacritics", "2"])
        with _tokenizers_lock:
            _tokenizers[conn] = tokenizer
    return tokenizer


def _doc_counts(conn: apsw.Connection, words: Sequence[str], *, prefix: bool) -> list[int]:
    """How many records contain each term (any term starting with it, for prefixes)."""
    tokenizer = _tokenizer(conn)
    counts = []
    for word in words:
        tokens = tokenizer(
            word.encode("utf-8"),
            apsw.FTS5_TOKENIZE_QUERY,
            None,
            include_offsets=False,
            include_colocated=False,
        )
        if not tokens:
            counts.append(0)
        elif prefix:
            counts.append(
                conn.execute(
                    "SELECT coalesce(sum(doc), 0) FROM memory_fts_vocab WHERE term >= ? AND term < ?",
                    (tokens[0], tokens[0] + "\U0010ffff"),
                ).fetchone()[0]
            )
        else:
            row = conn.execute(
                "SELECT doc FROM memory_fts_vocab WHERE term = ?", (tokens[0],)
            ).fetchone()
            counts.append(row[0] if row else 0)
    return counts


def _ranked(
    conn: apsw.Connection,
    words: Sequence[str],
    scope: MemoryScope,
    tags: Sequence[str],
    kinds: Sequence[str],
    limit: int,
    *,
    prefix: bool,
) -> list[SearchHit]:
    terms_query = fts_query(list(words), prefix=prefix)
    if terms_query is None:
        return []
    condition = scope_query(scope.clauses) if scope.clauses is not None else None
    if scope.clauses is not None and condition is None:
        return []  # a scope without clauses sees nothing
    match = full_query(terms_query, condition)
    counts = _doc_counts(conn, words, prefix=prefix)
    # The index already confined the matches to the scope; what it cannot
    # check (partition, tags, kinds) is checked on the joined rows.
    checks: list[str] = []
    params: list[Any] = []
    if scope.org_id is not None:
        checks.append("r.org_id = ?")
        params.append(scope.org_id)
    if scope.workspace_id is not None:
        checks.append("r.workspace_id = ?")
        params.append(scope.workspace_id)
    tags_sql, tag_params = _tags_sql(tags)
    if tags:
        checks.append(tags_sql)
        params.extend(tag_params)
    if kinds:
        checks.append(f"r.kind IN ({','.join('?' * len(kinds))})")
        params.extend(kinds)
    placeholders = ", ".join("?" * len(counts))
    candidates = (
        f"SELECT rowid, svc_bm25(memory_fts, {placeholders}) AS s FROM memory_fts "
        "WHERE memory_fts MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?"
    )
    if checks:
        sql = (
            f"SELECT c.rowid, c.s, ({' AND '.join(checks)}) FROM ({candidates}) c "
            "JOIN memory_records r ON r.seq = c.rowid"
        )
    else:
        sql = f"SELECT rowid, s, 1 FROM ({candidates})"
    window = max(limit * WINDOW_PER_HIT, MIN_WINDOW)
    while True:
        rows = list(conn.execute(sql, (*params, *counts, match, RANK, window)))
        kept = [(score, seq) for seq, score, ok in rows if ok]
        if len(kept) >= limit or len(rows) < window:
            break
        window *= 8  # the checks dropped too many: look further down the ranking
    # Re-rank the window by our BM25 (newest first on ties), then read only the winners.
    best = sorted(kept, reverse=True)[:limit]
    if not best:
        return []
    from .records import SearchHit

    rows = list(
        conn.execute(
            f"SELECT {_COLS}, seq FROM memory_records WHERE seq IN ({','.join('?' * len(best))})",
            [seq for _, seq in best],
        )
    )
    records = {row[-1]: record for row, record in zip(rows, _records(rows), strict=True)}
    return [
        SearchHit(records[seq], score_from_bm25(score), score)
        for score, seq in best
        if seq in records
    ]


def search_sync(
    conn: apsw.Connection,
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
    hits = _ranked(conn, words, scope, tags, kinds, limit, prefix=False)
    if hits:
        return hits
    # Nothing matched whole terms: try them as prefixes ("rotat" finds "rotation").
    prefixable = [w for w in words if len(w) >= 3]
    return _ranked(conn, prefixable, scope, tags, kinds, limit, prefix=True) if prefixable else []


# ---------------------------------------------------------------------- the store
class MemoryStore:
    """Async access to the memory tables of one engine database."""

    def __init__(self, db: Store) -> None:
        self.db = db

    async def insert(
        self,
        records: Sequence[MemoryRecord],
        *,
        audit: Sequence[AuditEntry] = (),
        ignore_existing: bool = False,
    ) -> int:
        def q(conn: apsw.Connection) -> int:
            count = insert_sync(conn, records, ignore_existing=ignore_existing)
            for entry in audit:
                audit_sync(conn, entry)
            return count

        return await self.db.write(q)

    async def get(self, record_id: str) -> MemoryRecord | None:
        def q(conn: apsw.Connection) -> MemoryRecord | None:
            row = conn.execute(
                f"SELECT {_COLS} FROM memory_records WHERE id = ?", (record_id,)
            ).fetchone()
            return _record(row) if row else None

        return await self.db.read(q)

    async def delete(
        self, record_id: str, *, audit: AuditEntry | None = None
    ) -> MemoryRecord | None:
        """Delete a record; returns it, or None when there was none."""

        def q(conn: apsw.Connection) -> MemoryRecord | None:
            row = conn.execute(
                f"SELECT {_COLS} FROM memory_records WHERE id = ?", (record_id,)
            ).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM memory_records WHERE id = ?", (record_id,))
            if audit is not None:
                audit_sync(conn, audit)
            return _record(row)

        return await self.db.write(q)

    async def delete_session(self, session_id: str, *, audit: AuditEntry | None = None) -> int:
        """Delete the session-tier records of a session (its transcript is gone)."""

        def q(conn: apsw.Connection) -> int:
            conn.execute(
                "DELETE FROM memory_records WHERE tier = 'session' AND session_id = ?",
                (session_id,),
            )
            count = conn.changes()
            if audit is not None and count:
                audit_sync(conn, audit)
            return count

        return await self.db.write(q)

    async def set_demoted(
        self,
        record_id: str,
        *,
        demoted: bool,
        now_ms: int,
        audit: AuditEntry | None = None,
    ) -> MemoryRecord | None:
        def q(conn: apsw.Connection) -> MemoryRecord | None:
            row = conn.execute(
                f"SELECT {_COLS} FROM memory_records WHERE id = ?", (record_id,)
            ).fetchone()
            if row is None:
                return None
            record = attrs.evolve(
                _record(row),
                demoted=demoted,
                visibility="private" if demoted else "shared",
                updated_at_ms=now_ms,
            )
            conn.execute(
                "UPDATE memory_records SET demoted = ?, visibility = ?, updated_at_ms = ?, scope = ? WHERE id = ?",
                (int(demoted), record.visibility, now_ms, _scope_of(record), record_id),
            )
            if audit is not None:
                audit_sync(conn, audit)
            return record

        return await self.db.write(q)

    async def search(
        self,
        text: str,
        scope: MemoryScope,
        *,
        tags: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 8,
    ) -> list[SearchHit]:
        return await self.db.read(
            lambda conn: search_sync(
                conn, text, scope, tags=normalize_tags(tags), kinds=kinds, limit=limit
            )
        )

    async def list(
        self,
        scope: MemoryScope,
        *,
        text: str | None = None,
        tags: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 100,
        offset: int = 0,
    ) -> tuple[list[MemoryRecord], int]:
        """Records newest first (``text`` narrows to full-text matches); and how many match in all."""
        wanted = normalize_tags(tags)

        def q(conn: apsw.Connection) -> tuple[list[MemoryRecord], int]:
            scope_sql, params = _scope_sql(scope)
            tags_sql, tag_params = _tags_sql(wanted)
            where = f"{scope_sql} AND {tags_sql}"
            params = [*params, *tag_params]
            if kinds:
                where += f" AND r.kind IN ({','.join('?' * len(kinds))})"
                params.extend(kinds)
            match = fts_query(terms(text)) if text else None
            if text and match is None:
                return [], 0
            if match is not None:
                where += " AND r.seq IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?)"
                params.append(match)
            total = conn.execute(
                f"SELECT count(*) FROM memory_records r WHERE {where}", params
            ).fetchone()[0]
            rows = conn.execute(
                f"SELECT {_R_COLS} FROM memory_records r WHERE {where} "
                "ORDER BY r.created_at_ms DESC, r.seq DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            )
            return _records(rows), total

        return await self.db.read(q)

    async def count(self) -> int:
        return await self.db.read(
            lambda conn: conn.execute("SELECT count(*) FROM memory_records").fetchone()[0]
        )

    async def audit(self, *, run_id: str | None = None, limit: int = 100) -> list[AuditEntry]:
        from .records import AuditEntry

        def q(conn: apsw.Connection) -> list[AuditEntry]:
            where, params = ("WHERE run_id = ?", [run_id]) if run_id else ("", [])
            rows = conn.execute(
                "SELECT id, action, record_id, run_id, tier, actor, detail, created_at_ms FROM memory_audit "
                f"{where} ORDER BY seq DESC LIMIT ?",
                (*params, limit),
            )
            return [
                AuditEntry(
                    id=r[0],
                    action=r[1],
                    record_id=r[2],
                    run_id=r[3],
                    tier=r[4],
                    actor=r[5],
                    detail=loads(r[6], {}),
                    created_at_ms=r[7],
                )
                for r in rows
            ]

        return await self.db.read(q)

    async def state(self, key: str) -> Any:
        return await self.db.read(state_get_sync, key)


def new_audit(
    action: str,
    *,
    now_ms: int,
    record: MemoryRecord | None = None,
    run_id: str | None = None,
    actor: str | None = None,
    detail: Mapping[str, Any] | None = None,
) -> AuditEntry:
    from .records import AuditEntry

    return AuditEntry(
        id=str(uuid.uuid4()),
        action=action,
        created_at_ms=now_ms,
        record_id=record.id if record else None,
        run_id=run_id if run_id is not None else (record.run_id if record else None),
        tier=record.tier if record else None,
        actor=actor,
        detail=dict(detail or {}),
    )


__all__ = [
    "MemoryStore",
    "audit_sync",
    "build_record",
    "content_hash",
    "delete_by_source_sync",
    "insert_sync",
    "new_audit",
    "normalize_tags",
    "search_sync",
    "state_get_sync",
    "state_put_sync",
]
