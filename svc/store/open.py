"""Open the store a configuration names."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from ..errors import ConfigError
from .protocol import Store

DB_FILENAME = "svc.db"


@asynccontextmanager
async def open_store(url: str | None, *, state_dir: Path) -> AsyncIterator[Store]:
    """Open the store named by ``url`` (None: SQLite in ``state_dir``), migrated.

    ``sqlite:///abs/path.db`` names another SQLite file; ``postgresql://`` (or
    ``postgres://``) ``user:password@host:port/dbname?sslmode=...`` a PostgreSQL
    database, which several engines may share.
    """
    scheme = (url or "").split(":", 1)[0].lower()
    if scheme in ("postgresql", "postgres") and url is not None:
        # Imported here: an SQLite engine never loads psycopg.
        from .postgresql import open_pg_store

        async with open_pg_store(url) as pg:
            yield pg
        return
    if url is None or url == "":
        path = state_dir / DB_FILENAME
    elif url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite://"))
    else:
        raise ConfigError(
            f"unsupported store URL scheme {scheme!r}: "
            "use sqlite:///<path> or postgresql://user:password@host:port/dbname"
        )
    from .sqlite import open_sqlite_store

    async with open_sqlite_store(path) as store:
        yield store


__all__ = ["DB_FILENAME", "open_store"]
