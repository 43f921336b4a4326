"""Persistence behind one seam: the :class:`Store` protocol and its backends.

Repositories (one module per aggregate, in their domain package) hand units of
work ``fn(tx, *args)`` to :meth:`Store.read` / :meth:`Store.write` and write
SQL in the subset SQLite and PostgreSQL share, asking ``tx.dialect`` for the
rest (see :mod:`svc.store.protocol`). SQLite through apsw is the backend today
(:mod:`svc.store.sqlite`); nothing outside ``svc/store`` and the repository
modules imports a driver.
"""

from .dialect import POSTGRESQL, SQLITE, Dialect
from .errors import IntegrityError
from .json_columns import dumps, loads
from .kv import KeyValueRepository
from .open import DB_FILENAME, open_store
from .protocol import Params, Row, Rows, Store, Tx
from .sqlite import SqliteStore, open_sqlite_store

__all__ = [
    "DB_FILENAME",
    "POSTGRESQL",
    "SQLITE",
    "Dialect",
    "IntegrityError",
    "KeyValueRepository",
    "Params",
    "Row",
    "Rows",
    "SqliteStore",
    "Store",
    "Tx",
    "dumps",
    "loads",
    "open_sqlite_store",
    "open_store",
]
