"""``store_backend``: each store-level test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from svc.store import Store, open_store


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL naming a fresh, migrated store of each backend."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'svc.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
async def store_backend(store_url: str, tmp_path: Path) -> AsyncIterator[Store]:
    async with open_store(store_url, state_dir=tmp_path) as store:
        yield store
