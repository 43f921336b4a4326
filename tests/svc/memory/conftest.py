"""Memory tests: a real store on each backend (``store_backend``: SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from svc.memory import MemoryStore
from svc.store import Store


@pytest.fixture
async def store(store_backend: Store) -> AsyncIterator[MemoryStore]:
    yield MemoryStore(store_backend)
