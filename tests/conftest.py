"""Fixtures shared by the whole suite.

Every engine-level test opens a real engine (real SQLite store in a temporary
state dir, real event log, real actors) and, where it talks HTTP, a real
hypercorn server bound to a free loopback port. Nothing reads the process
environment: settings get an explicit, isolated environment mapping.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from svc import Settings
from svc.store import Store, open_store
from tests.pg import pg_cluster, pg_empty_url, pg_url  # noqa: F401  (PostgreSQL fixtures)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL naming a fresh, migrated store of each backend: a test using it (or
    ``store_backend``) runs on SQLite and on PostgreSQL in the normal suite."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'svc.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
async def store_backend(store_url: str, tmp_path: Path) -> AsyncIterator[Store]:
    """A store of each backend (see ``store_url``), for repository-level tests."""
    async with open_store(store_url, state_dir=tmp_path) as store:
        yield store


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """An isolated environment: no real API keys or user config leak into tests."""
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config")}


@pytest.fixture
def make_settings(
    tmp_path: Path, workspace: Path, environ: dict[str, str], request: pytest.FixtureRequest
) -> Callable[..., Settings]:
    # --- SVC_TEST_STORE=postgresql: engines of this test share one fresh
    # PostgreSQL database (tests/pg.py) instead of SQLite in the state dir.
    store_url = None
    if os.environ.get("SVC_TEST_STORE") == "postgresql":
        store_url = request.getfixturevalue("pg_url")
    # ---

    def make(env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        base: dict[str, Any] = {
            "state_dir": tmp_path / "state",
            "workspace": workspace,
            "port": 0,
            "global_config": tmp_path / "global-config.json",
        }
        if store_url is not None:  # SVC_TEST_STORE (above)
            base["store_url"] = store_url
        base.update(overrides)
        return Settings.load(base, environ={**environ, **(env or {})})

    return make


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings()


@pytest.fixture
async def engine(settings: Settings) -> AsyncIterator[svc.Engine]:
    async with svc.open_engine(settings, serve_http=True) as eng:
        yield eng


@pytest.fixture
async def client(engine: svc.Engine) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as c:
        yield c


@pytest.fixture
async def fake_model() -> AsyncIterator[Any]:
    """A scripted OpenAI-compatible model server on loopback (see tests/fakes/openai_server.py).

    Unscripted requests are answered by echoing the last user message.
    """
    from tests.fakes.openai_server import open_fake_openai

    async with open_fake_openai() as server:
        yield server


@pytest.fixture
def model_settings(make_settings: Callable[..., Settings], fake_model: Any) -> Settings:
    """Settings whose default provider is the fake model server (override ``settings`` with it)."""
    return make_settings(
        default_provider="openai",
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )
