"""Persistence: SQLite (apsw, WAL) with numbered migrations.

Domain packages own their repositories (for example ``svc.sessions``' session
repository); they all run their SQL through the :class:`Database` opened here,
so every write is a short transaction on the single writer connection.
"""

from ._database import Database, open_database
from ._kv import KeyValueRepository
from ._migrate import apply_migrations, available_migrations
from .json_columns import dumps, loads

__all__ = [
    "Database",
    "KeyValueRepository",
    "apply_migrations",
    "available_migrations",
    "dumps",
    "loads",
    "open_database",
]
