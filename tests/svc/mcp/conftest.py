"""Fixtures of the MCP tests: real SDK servers on loopback, engines with MCP settings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import trio

import svc
from svc import Settings
from tests.fakes.mcp_servers import (
    AuthServer,
    FakeMcpServer,
    Gate,
    auth_server,
    open_mcp_server,
    paged_server,
    strict_server,
    workbench_server,
)


class ManualClock:
    """Wall time that moves only when the test says so (cooldowns without sleeping)."""

    def __init__(self, now_ms: int = 1_767_225_600_000) -> None:
        self.ms = now_ms

    def now_ms(self) -> int:
        return self.ms

    def to_trio_time(self, wall_ms: int) -> float:
        return trio.current_time() + (wall_ms - self.ms) / 1000.0

    def advance(self, ms: int) -> None:
        self.ms += ms


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
async def workbench(gate: Gate) -> AsyncIterator[FakeMcpServer]:
    async with open_mcp_server(workbench_server(gate)) as server:
        yield server


@pytest.fixture
async def paged() -> AsyncIterator[FakeMcpServer]:
    async with open_mcp_server(paged_server(count=7, page_size=3)) as server:
        yield server


@pytest.fixture
async def strict() -> AsyncIterator[FakeMcpServer]:
    async with open_mcp_server(strict_server(), json_response=True) as server:
        yield server


@pytest.fixture
def gateway_state() -> AuthServer:
    return auth_server()


@pytest.fixture
async def gateway(gateway_state: AuthServer) -> AsyncIterator[FakeMcpServer]:
    async with open_mcp_server(gateway_state.server) as server:
        yield server


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    # Start-up reconnects retry quickly in tests (the default waits seconds).
    return make_settings(mcp_startup_backoff_ms=20, mcp_startup_attempts=50)


async def add_server(client: httpx.AsyncClient, name: str, url: str, **body: Any) -> None:
    response = await client.post("/mcp", json={"name": name, "transport": url, **body})
    assert response.status_code == 200, response.text
    assert response.json() == {"ok": True}


async def connect(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    response = await client.post(f"/mcp/{name}/connect")
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def connected_engine_server(engine: svc.Engine, name: str, url: str, **body: Any) -> None:
    """Configure and connect a server through the service (no HTTP)."""
    from svc.mcp import ConnectorInput

    await engine.mcp.add(ConnectorInput(name=name, transport=url, **body))
    outcome = await engine.mcp.connect(name)
    assert outcome["ok"], outcome
