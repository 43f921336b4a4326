"""The memory repositories of one engine database, built together.

Usable without an engine (the CLI import builds one on its own store). The
search index is chosen for the backend here; every repository keeps its SQL
to itself.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ..store import Store
from .audit_repository import AuditRepository
from .exchange_repository import ExchangeRepository
from .record_repository import RecordRepository
from .search_index_repository import SearchIndex
from .state_repository import StateRepository

# The import repository is built by the first import: start-up runs none
# (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .import_repository import ImportRepository


def search_index_for(db: Store) -> SearchIndex:
    """The full-text index of the backend ``db`` runs on."""
    if db.kind == "sqlite":
        from .sqlite_fts_repository import SqliteFtsIndex

        return SqliteFtsIndex()
    from .pg_search_repository import PgSearchIndex  # the other backend: PostgreSQL

    return PgSearchIndex()


class MemoryStore:
    """Records (with their search index), audit, state, exchanges and imports."""

    def __init__(self, db: Store) -> None:
        self.db = db
        self.records = RecordRepository(db, search_index_for(db))
        self.audit = AuditRepository(db)
        self.state = StateRepository(db)
        self.exchanges = ExchangeRepository(db, self.records)

    @functools.cached_property
    def imports(self) -> ImportRepository:
        from .import_repository import ImportRepository

        return ImportRepository(self.db, self.records)


__all__ = ["MemoryStore", "search_index_for"]
