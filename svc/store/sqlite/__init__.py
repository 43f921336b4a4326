"""The SQLite backend (apsw): the default store, embedded in the state directory."""

from .migrate import apply_migrations, available_migrations
from .store import SqliteStore, open_sqlite_store
from .tx import SqliteRows, SqliteTx

__all__ = [
    "SqliteRows",
    "SqliteStore",
    "SqliteTx",
    "apply_migrations",
    "available_migrations",
    "open_sqlite_store",
]
