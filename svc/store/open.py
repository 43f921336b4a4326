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

    ``sqlite:///abs/path.db`` names another SQLite file.
    """
    if url is None or url == "":
        path = state_dir / DB_FILENAME
    elif url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite://"))
    else:
        scheme = url.split(":", 1)[0]
        raise ConfigError(f"unsupported store URL scheme {scheme!r}: use sqlite:///<path>")
    from .sqlite import open_sqlite_store

    async with open_sqlite_store(path) as store:
        yield store


__all__ = ["DB_FILENAME", "open_store"]
