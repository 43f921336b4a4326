"""The memory search index on PostgreSQL: ``tsvector`` columns ranked by ``ts_rank_cd``.

``memory_records`` (PostgreSQL migration 008) has two generated columns the
database keeps in step with every write, each with a GIN index:

* ``search_vector``: content (weight A) and tags (weight B), English stemming,
  so ``deploys`` finds ``deployment``;
* ``scope_vector``: the record's scope tokens verbatim
  (:func:`svc.memory.query.scope_text`).

So :meth:`PgSearchIndex.index` and :meth:`~PgSearchIndex.remove` have nothing
to do. A query ORs its terms (term prefixes with ``:*``) in ``to_tsquery``;
terms are runs of letters and digits (:func:`svc.memory.query.terms`), so no
tsquery operator can come from the text. Scope tokens are matched as literal
lexemes (a ``tsquery`` cast, no parsing or stemming), and demoted records are
left out unless asked for, as on SQLite.

The relevance is ``ts_rank_cd`` with tags at half the weight of content (the
weights array is D, C, B, A); it is not BM25, so rankings differ slightly from
SQLite's, and the (0, 1) score stays strictly increasing in it
(:func:`svc.memory.query.score_from_bm25`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..store import Tx
from .query import DEMOTED_TOKEN, scope_tokens
from .search_index_repository import IndexEntry, IndexQuery, Ranked, RowCheck

WEIGHTS = "{0.1, 0.2, 0.5, 1.0}"
"""``ts_rank_cd`` weights of D, C, B (tags: half) and A (content)."""

_TERMS = "to_tsquery('english', ?)"


def terms_query(words: Iterable[str], *, prefix: bool = False) -> str | None:
    """The ``to_tsquery`` text ORing ``words`` (prefixes with ``prefix``); None for no words."""
    star = ":*" if prefix else ""
    # Words are letters and digits only (svc.memory.query.terms): nothing to escape.
    parts = [f"{w}{star}" for w in words if w]
    return " | ".join(parts) if parts else None


def lexemes(tokens: Iterable[str]) -> str:
    """A ``tsquery`` literal ORing ``tokens`` as they are (no parsing, no stemming)."""
    return " | ".join("'" + t.replace("'", "''") + "'" for t in tokens)


class PgSearchIndex:
    """:class:`~svc.memory.search_index_repository.SearchIndex` on PostgreSQL
    full-text search (see the module docstring)."""

    def index(self, tx: Tx, entries: Sequence[IndexEntry]) -> None:
        """Nothing to do: ``search_vector`` and ``scope_vector`` are generated columns."""

    def remove(self, tx: Tx, keys: Sequence[int]) -> None:
        """Nothing to do: a deleted row takes its vectors with it."""

    def matching(self, query: IndexQuery) -> RowCheck:
        text = terms_query(query.words, prefix=query.prefix)
        if text is None:
            return RowCheck("FALSE")
        return RowCheck(f"r.search_vector @@ {_TERMS}", (text,))

    def ranked(
        self, tx: Tx, query: IndexQuery, *, check: RowCheck | None, limit: int
    ) -> list[Ranked]:
        text = terms_query(query.words, prefix=query.prefix)
        if text is None:
            return []
        clauses = ["r.search_vector @@ q.q"]
        params: list[Any] = [text]
        if query.clauses is not None:
            tokens = scope_tokens(query.clauses)
            if not tokens:
                return []  # a scope without clauses sees nothing
            clauses.append("r.scope_vector @@ CAST(? AS tsquery)")
            params.append(lexemes(tokens))
        if not query.include_demoted:
            clauses.append("NOT (r.scope_vector @@ CAST(? AS tsquery))")
            params.append(lexemes([DEMOTED_TOKEN]))
        if check is not None:
            clauses.append(f"({check.sql})")
            params.extend(check.params)
        sql = (
            f"SELECT ts_rank_cd('{WEIGHTS}', r.search_vector, q.q) AS s, r.seq "
            f"FROM memory_records r, {_TERMS} AS q(q) WHERE {' AND '.join(clauses)} "
            "ORDER BY s DESC, r.seq DESC LIMIT ?"
        )
        params.append(limit)
        return [(float(score), int(key)) for score, key in tx.execute(sql, params)]


__all__ = ["WEIGHTS", "PgSearchIndex", "lexemes", "terms_query"]
