"""Memory tests: a real store on a real SQLite database in a temporary directory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from svc.memory import MemoryStore
from svc.store import open_sqlite_store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[MemoryStore]:
    async with open_sqlite_store(tmp_path / "memory-test.db") as db:
        yield MemoryStore(db)
