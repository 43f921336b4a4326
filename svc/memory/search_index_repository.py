"""The full-text index behind memory search, as any database backend provides it.

The record repository owns the records; a :class:`SearchIndex` answers which
of them match search terms, best first. Its methods run inside the record
repository's units of work (``tx`` is that transaction), so a write and its
index update commit together and a search is one snapshot and one round trip.

What stays out of any backend: the terms of a query and the scope tokens
(:mod:`svc.memory.query`), trying term prefixes when whole terms found nothing,
the (0, 1) score, and reading the winning records. A backend supplies the
candidate ranking: SQLite with FTS5 and our BM25 function
(:mod:`svc.memory.sqlite_fts_repository`); PostgreSQL would use a ``tsvector``
column and ``ts_rank_cd``.

A storage-layer module (hence its name): it defines no SQL, but its methods take
the unit of work's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from ..store import Tx

if TYPE_CHECKING:
    from .records import ScopeClause


@attrs.frozen
class IndexEntry:
    """What the index holds of one record."""

    key: int
    """The record's integer key (``memory_records.seq``)."""
    content: str
    tags: str
    """The record's tags column (a JSON array)."""
    scope: str
    """The record's scope tokens (:func:`svc.memory.query.scope_text`)."""


@attrs.frozen
class IndexQuery:
    words: tuple[str, ...]
    """Search terms (:func:`svc.memory.query.terms`), matched with OR."""
    prefix: bool = False
    """Match records with any term starting with a word (``rotat`` finds ``rotation``)."""
    clauses: tuple[ScopeClause, ...] | None = None
    """Only records in one of these scope clauses; None: every record."""
    include_demoted: bool = False


@attrs.frozen
class RowCheck:
    """A condition the index cannot check itself (partition, tags, kinds), written
    on the record row aliased ``r``; the index joins the row to check it."""

    sql: str
    params: tuple[Any, ...] = ()


Ranked = tuple[float, int]
"""(raw BM25 relevance, record key)."""


class SearchIndex(Protocol):
    def index(self, tx: Tx, entries: Sequence[IndexEntry]) -> None:
        """Index new records or re-index changed ones, in the writer's transaction."""
        ...

    def remove(self, tx: Tx, keys: Sequence[int]) -> None:
        """Forget deleted records, in the deleter's transaction."""
        ...

    def ranked(
        self, tx: Tx, query: IndexQuery, *, check: RowCheck | None, limit: int
    ) -> list[Ranked]:
        """The best ``limit`` matching records passing ``check``, best first
        (newest first on equal relevance); empty when nothing matches."""
        ...

    def matching(self, query: IndexQuery) -> RowCheck:
        """A condition on ``r.seq`` that holds for every record matching the
        query's terms (listings narrowed by text; no ranking)."""
        ...


__all__ = ["IndexEntry", "IndexQuery", "Ranked", "RowCheck", "SearchIndex"]
