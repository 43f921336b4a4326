"""The memory search index on SQLite: FTS5 with our BM25 ranking.

``memory_fts`` (migration 008) is an external-content FTS5 table over the
``content``, ``tags`` and ``scope`` columns of ``memory_records``, keyed by
``seq`` and kept in step by triggers in the same statement as each write, so
:meth:`SqliteFtsIndex.index` and :meth:`~SqliteFtsIndex.remove` have nothing
to do.

A query is FTS5 syntax built here: every term is quoted, so FTS5 operators and
punctuation in the text are never interpreted, and the terms are joined with
``OR`` over ``content`` and ``tags``, ANDed with the scope's tokens over
``scope``. FTS5's own ``bm25()`` picks a window of candidates in index order;
our ``svc_bm25`` auxiliary function (Okapi BM25 with the always-positive idf of
:mod:`svc.memory.query`) scores them, once per returned row only.

Backend code: it needs the driver's connection (``SqliteTx.connection``) to
register the function and to reach the FTS5 tokenizer, which are SQLite's alone.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import apsw

from ..store import Tx
from ..store.sqlite import SqliteTx
from .query import COLUMN_WEIGHTS, DEMOTED_TOKEN, K1, B, idf, scope_tokens
from .search_index_repository import IndexEntry, IndexQuery, Ranked, RowCheck

RANK = "bm25(1.0, 0.5, 0.0)"
"""The index's own ranking, used to pick candidates: content, tags at half weight, scope never."""

WINDOW_PER_HIT = 2
MIN_WINDOW = 16
"""Candidates the index returns per wanted hit; they are re-scored and cut."""


# ---------------------------------------------------------------------- FTS5 query syntax
def fts_query(words: Iterable[str], *, prefix: bool = False) -> str | None:
    """``{content tags} : ("a" OR "b")`` (term prefixes with ``prefix``);
    None when there is nothing to search."""
    star = "*" if prefix else ""
    quoted = [f'"{w}"{star}' for w in words]
    if not quoted:
        return None
    return "{content tags} : (" + " OR ".join(quoted) + ")"


def scope_query(clauses: Iterable[Any]) -> str | None:
    """The FTS5 condition for a scope's clauses (None: the scope can see nothing)."""
    tokens = scope_tokens(clauses)
    if not tokens:
        return None
    return "scope : (" + " OR ".join(f'"{t}"' for t in tokens) + ")"


def full_query(
    terms_query: str, scope_condition: str | None, *, include_demoted: bool = False
) -> str:
    query = f"({terms_query})"
    if scope_condition is not None:
        query = f"({query} AND {scope_condition})"
    if not include_demoted:
        query = f'{query} NOT scope : "{DEMOTED_TOKEN}"'
    return query


# ---------------------------------------------------------------------- BM25
def bm25_function(api: apsw.FTS5ExtensionApi, *doc_counts: apsw.SQLiteValue) -> float:
    """FTS5 auxiliary function ``svc_bm25(memory_fts, n_0, n_1, ...)``.

    ``n_i`` is the number of records containing the i-th query term; the
    terms are the query's first phrases. Runs once per returned row only,
    because searches order by the built-in rank and stop at their limit.
    """
    rows = api.row_count or 1
    sizes = [api.column_size(c) for c in range(len(COLUMN_WEIGHTS))]
    totals = [api.column_total_size(c) for c in range(len(COLUMN_WEIGHTS))]
    length = sum(sizes)
    average = (sum(totals) / rows) or 1.0
    norm = K1 * (1.0 - B + B * length / average)
    score = 0.0
    for phrase, containing in enumerate(doc_counts):
        locations = api.phrase_locations(phrase)
        tf = sum(w * len(locations[c]) for c, w in enumerate(COLUMN_WEIGHTS))
        if tf:
            n = containing if isinstance(containing, int) else 0
            score += idf(rows, min(n, rows)) * tf * (K1 + 1.0) / (tf + norm)
    return score


# ---------------------------------------------------------------------- per connection
_tokenizers: weakref.WeakKeyDictionary[apsw.Connection, apsw.FTS5Tokenizer] = (
    weakref.WeakKeyDictionary()
)
# Each connection runs on its own worker thread; the map they share is guarded.
_tokenizers_lock = threading.Lock()


def _tokenizer(tx: Tx) -> apsw.FTS5Tokenizer:
    """The index's tokenizer on this connection; registers ``svc_bm25`` there the first time."""
    if not isinstance(tx, SqliteTx):
        raise TypeError("the FTS5 search index needs a SQLite store")
    conn = tx.connection  # the driver's own connection: FTS5 is SQLite's alone
    with _tokenizers_lock:
        tokenizer = _tokenizers.get(conn)
    if tokenizer is None:
        conn.register_fts5_function("svc_bm25", bm25_function)
        tokenizer = conn.fts5_tokenizer("porter", ["unicode61", "remove_diacritics", "2"])
        with _tokenizers_lock:
            _tokenizers[conn] = tokenizer
    return tokenizer


def _doc_counts(tx: Tx, words: Sequence[str], *, prefix: bool) -> list[int]:
    """How many records contain each term (any term starting with it, for prefixes)."""
    tokenizer = _tokenizer(tx)
    counts = []
    for word in words:
        # Without offsets and colocated forms, the tokenizer yields plain strings.
        tokens = list(
            tokenizer(
                word.encode("utf-8"),
                apsw.FTS5_TOKENIZE_QUERY,
                None,
                include_offsets=False,
                include_colocated=False,
            )
        )
        term = tokens[0] if tokens else None
        if not isinstance(term, str):
            counts.append(0)
        elif prefix:
            counts.append(
                tx.execute(
                    "SELECT coalesce(sum(doc), 0) FROM memory_fts_vocab "
                    "WHERE term >= ? AND term < ?",
                    (term, f"{term}\U0010ffff"),
                ).scalar(0)
            )
        else:
            counts.append(
                tx.execute("SELECT doc FROM memory_fts_vocab WHERE term = ?", (term,)).scalar(0)
            )
    return counts


class SqliteFtsIndex:
    """:class:`~svc.memory.search_index_repository.SearchIndex` on SQLite's FTS5
    (see the module docstring)."""

    def index(self, tx: Tx, entries: Sequence[IndexEntry]) -> None:
        """Nothing to do: the triggers of ``memory_records`` index each write."""

    def remove(self, tx: Tx, keys: Sequence[int]) -> None:
        """Nothing to do: the triggers of ``memory_records`` drop deleted rows."""

    def matching(self, query: IndexQuery) -> RowCheck:
        match = fts_query(query.words, prefix=query.prefix)
        if match is None:
            return RowCheck("FALSE")
        return RowCheck(
            "r.seq IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?)", (match,)
        )

    def ranked(
        self, tx: Tx, query: IndexQuery, *, check: RowCheck | None, limit: int
    ) -> list[Ranked]:
        terms_query = fts_query(query.words, prefix=query.prefix)
        if terms_query is None:
            return []
        condition = scope_query(query.clauses) if query.clauses is not None else None
        if query.clauses is not None and condition is None:
            return []  # a scope without clauses sees nothing
        match = full_query(terms_query, condition, include_demoted=query.include_demoted)
        counts = _doc_counts(tx, query.words, prefix=query.prefix)
        placeholders = ", ".join("?" * len(counts))
        candidates = (
            f"SELECT rowid, svc_bm25(memory_fts, {placeholders}) AS s FROM memory_fts "
            "WHERE memory_fts MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?"
        )
        # The index already confined the matches to the scope; what it cannot
        # check (partition, tags, kinds) is checked on the joined rows.
        if check is not None:
            sql = (
                f"SELECT c.rowid, c.s, ({check.sql}) FROM ({candidates}) c "
                "JOIN memory_records r ON r.seq = c.rowid"
            )
            params: tuple[Any, ...] = check.params
        else:
            sql = f"SELECT rowid, s, 1 FROM ({candidates})"
            params = ()
        window = max(limit * WINDOW_PER_HIT, MIN_WINDOW)
        while True:
            rows = list(tx.execute(sql, (*params, *counts, match, RANK, window)))
            kept = [(score, key) for key, score, ok in rows if ok]
            if len(kept) >= limit or len(rows) < window:
                break
            window *= 8  # the checks dropped too many: look further down the ranking
        # Re-rank the window by our BM25 (newest first on ties).
        return sorted(kept, reverse=True)[:limit]


__all__ = ["SqliteFtsIndex", "bm25_function", "fts_query", "full_query", "scope_query"]
