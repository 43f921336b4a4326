"""The PostgreSQL backend (psycopg 3 on worker threads): engines sharing one database.

Imported only when a store URL names PostgreSQL (:func:`svc.store.open_store`),
so an SQLite engine never loads psycopg.
"""

from .migrate import apply_migrations, available_migrations
from .placeholders import translate
from .store import PgStore, open_pg_store
from .tx import PgRows, PgTx

__all__ = [
    "PgRows",
    "PgStore",
    "PgTx",
    "apply_migrations",
    "available_migrations",
    "open_pg_store",
    "translate",
]
