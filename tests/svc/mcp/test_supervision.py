"""Connector actors under supervision: crash restarts, engine restarts, start-up reconnects."""

from __future__ import annotations

import svc
from svc import Settings
from svc.mcp import ConnectorInput
from tests.fakes.mcp_servers import FakeMcpServer
from tests.helpers import wait_for_event

from .conftest import connected_engine_server


async def test_a_crashed_connector_restarts_with_its_configuration_and_reconnects(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(
        engine, "bench", workbench.url, headers={"X-Team": "blue"}, allowed_tools=["add", "echo"]
    )
    first = engine.actors.lookup("mcp/bench")
    assert first is not None
    first.tell(object())  # unhandled told message: the actor crashes
    await wait_for_event(
        engine, "mcp.tools.updated", where=lambda e: e.properties["source"] == "restart"
    )
    second = engine.actors.lookup("mcp/bench")
    assert second is not None and second != first
    assert engine.entities.supervisor("connectors").restart_count == 1
    snapshot = engine.mcp.get("bench")
    assert snapshot.config.allowed_tools == ("add", "echo") and dict(snapshot.config.headers) == {
        "X-Team": "blue"
    }
    assert snapshot.state.connected is True and workbench.sessions_opened == 2
    assert workbench.posts("initialize")[-1].headers["x-team"] == "blue"
    assert sorted(n for n in engine.tools.names() if n.startswith("mcp.bench.")) == [
        "mcp.bench.add",
        "mcp.bench.echo",
    ]
    assert (await engine.mcp.call("bench", "echo", {"text": "alive"})).output == "alive"


async def test_enabled_connectors_reconnect_when_the_engine_starts(
    workbench: FakeMcpServer, settings: Settings
) -> None:
    async with svc.open_engine(settings) as engine:
        await connected_engine_server(engine, "bench", workbench.url)
        await engine.mcp.add(ConnectorInput(name="off", transport=workbench.url, enabled=False))
    assert [r.method for r in workbench.requests][-1] == "DELETE"  # sessions end with the engine
    async with svc.open_engine(settings) as engine:
        connected = await wait_for_event(
            engine,
            "mcp.server.connected",
            where=lambda e: e.properties["source"] == "startup_bootstrap",
        )
        assert connected.properties["name"] == "bench"
        assert "mcp.bench.add" in engine.tools.names()
        assert engine.mcp.get("off").state.connected is False
    assert workbench.sessions_opened == 2


async def test_start_up_reconnect_backs_off_until_the_server_is_up(
    workbench: FakeMcpServer, settings: Settings
) -> None:
    async with svc.open_engine(settings) as engine:
        await connected_engine_server(engine, "bench", workbench.url)
    await workbench.kill()
    async with svc.open_engine(settings) as engine:
        failed = await wait_for_event(
            engine,
            "mcp.server.disconnected",
            where=lambda e: e.properties["source"] == "startup_bootstrap",
        )
        assert failed.properties["reason"] == "connect_failed"
        await workbench.revive()
        await wait_for_event(
            engine,
            "mcp.server.connected",
            where=lambda e: e.properties["source"] == "startup_bootstrap",
        )
        assert engine.mcp.get("bench").state.connected is True
