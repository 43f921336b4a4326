"""Calling remote tools: results, errors, argument repair, concurrency, expired sessions, dying
servers."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import trio

import svc
from svc.mcp import (
    McpCallTimeout,
    McpConnectionLost,
    McpToolError,
    McpToolNotAllowed,
    McpToolNotFound,
)
from svc.tools import ToolContext
from tests.fakes.mcp_servers import FakeMcpServer, Gate
from tests.fakes.tcp_proxy import open_tcp_proxy
from tests.helpers import wait_for_event

from .conftest import connected_engine_server


def context(engine: svc.Engine) -> ToolContext:
    return ToolContext(workspace=engine.workspace, source="internal", http=engine.http)


async def test_text_content_is_the_output_and_structured_content_stays_in_metadata(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "bench", workbench.url)
    result = await engine.mcp.call("bench", "add", {"a": 2, "b": 40})
    assert result.output == "42"
    assert result.metadata["structuredContent"] == {"result": 42}
    assert result.metadata["server"] == "bench" and result.metadata["tool"] == "add"
    forecast = await engine.mcp.call("bench", "mcp.bench.forecast", {"city": "Oslo"})
    assert json.loads(forecast.output) == {"city": "Oslo", "temperature_c": 21.5}
    assert forecast.metadata["structuredContent"] == {"city": "Oslo", "temperature_c": 21.5}


async def test_is_error_makes_the_call_fail_with_the_servers_text(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "bench", workbench.url)
    with pytest.raises(McpToolError) as raised:
        await engine.mcp.call("bench", "fail", {"reason": "no fuel"})
    assert "cannot comply: no fuel" in raised.value.message
    assert raised.value.extra["tool"] == "mcp.bench.fail"


async def test_tools_are_found_by_remote_name_slug_or_id(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "bench", workbench.url)
    for name in ("Search-Issues", "search_issues", "mcp.bench.search_issues", "search-issues"):
        assert (
            await engine.mcp.call("bench", name, {"query": "bug"})
        ).output == "issues matching bug"
    assert [c["name"] for c in workbench.calls()] == ["Search-Issues"] * 4
    with pytest.raises(McpToolNotFound):
        await engine.mcp.call("bench", "nope", {})


async def test_allowed_tools_filter_the_registry_and_calls(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(
        engine, "bench", workbench.url, allowed_tools=["add", "mcp.bench.echo"]
    )
    assert sorted(n for n in engine.tools.names() if n.startswith("mcp.")) == [
        "mcp.bench.add",
        "mcp.bench.echo",
    ]
    assert (await engine.mcp.call("bench", "echo", {"text": "hi"})).output == "hi"
    with pytest.raises(McpToolNotAllowed):
        await engine.mcp.call("bench", "forecast", {"city": "Oslo"})
    assert [c["name"] for c in workbench.calls()] == ["echo"]


async def test_a_registry_tool_executes_through_the_connector(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "bench", workbench.url)
    tool = engine.tools.require("mcp.bench.echo")
    result = await tool.execute({"text": "via registry"}, context(engine))
    assert result.output == "via registry"


async def test_hundred_concurrent_calls_share_one_session(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "bench", workbench.url)
    results: dict[int, str] = {}

    async def one(i: int) -> None:
        results[i] = (await engine.mcp.call("bench", "add", {"a": i, "b": 1000})).output

    async with trio.open_nursery() as nursery:
        for i in range(100):
            nursery.start_soon(one, i)
    assert results == {i: str(i + 1000) for i in range(100)}
    assert workbench.sessions_opened == 1
    assert {r.session_id for r in workbench.posts("tools/call")} == {
        engine.mcp.get("bench").state.mcp_session_id
    }


async def test_a_slow_call_does_not_hold_up_others_or_the_mailbox(
    workbench: FakeMcpServer, engine: svc.Engine, gate: Gate
) -> None:
    await connected_engine_server(engine, "bench", workbench.url)
    held: list[str] = []

    async def slow() -> None:
        held.append((await engine.mcp.call("bench", "hold", {"tag": "slow"})).output)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow)
        await gate.arrived.wait()
        # The hold call is in flight: the connector still answers other calls and messages.
        assert (await engine.mcp.call("bench", "echo", {"text": "fast"})).output == "fast"
        assert (await engine.mcp.refresh("bench"))["ok"] is True
        gate.open()
    assert held == ["released slow"]


async def test_a_call_past_its_deadline_times_out(
    workbench: FakeMcpServer, make_settings: object, tmp_path: Path
) -> None:
    settings = make_settings(mcp_call_timeout_ms=200)  # type: ignore[operator]
    async with svc.open_engine(settings) as engine:
        await connected_engine_server(engine, "bench", workbench.url)
        with pytest.raises(McpCallTimeout):
            await engine.mcp.call("bench", "hold", {"tag": "never released"})
        # The connector is still healthy afterwards.
        assert (await engine.mcp.call("bench", "echo", {"text": "ok"})).output == "ok"


async def test_an_expired_session_is_reinitialized_once_and_the_call_retried(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "bench", workbench.url)
    old_session = engine.mcp.get("bench").state.mcp_session_id
    workbench.expire_sessions()
    result = await engine.mcp.call("bench", "echo", {"text": "again"})
    assert result.output == "again"
    calls = workbench.posts("tools/call")
    assert [(c.session_id == old_session, c.status) for c in calls] == [(True, 404), (False, 200)]
    assert workbench.sessions_opened == 2
    new_session = engine.mcp.get("bench").state.mcp_session_id
    assert new_session and new_session != old_session and calls[1].session_id == new_session
    # The expired session is not DELETEd: the server has already forgotten it.
    assert [r for r in workbench.requests if r.method == "DELETE"] == []


async def test_a_server_dying_mid_session_fails_the_call_and_disconnects(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "bench", workbench.url)
    await workbench.kill()
    with pytest.raises(McpConnectionLost) as raised:
        await engine.mcp.call("bench", "echo", {"text": "anyone?"})
    assert raised.value.retryable is True
    lost = await wait_for_event(engine, "mcp.server.disconnected")
    assert (
        lost.properties["reason"] == "connection_lost" and lost.properties["removedToolCount"] == 7
    )
    snapshot = engine.mcp.get("bench")
    assert snapshot.state.connected is False and snapshot.state.tool_cache == ()
    assert "unreachable" in (snapshot.state.last_error or "")
    assert not [n for n in engine.tools.names() if n.startswith("mcp.bench.")]
    await workbench.revive()
    assert (await engine.mcp.connect("bench"))["ok"] is True
    assert (await engine.mcp.call("bench", "echo", {"text": "back"})).output == "back"


async def test_calling_a_disconnected_server_connects_it_first(
    workbench: FakeMcpServer, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    from svc.mcp import ConnectorInput

    await engine.mcp.add(ConnectorInput(name="bench", transport=workbench.url))
    assert (await engine.mcp.call("bench", "echo", {"text": "lazy"})).output == "lazy"
    assert engine.mcp.get("bench").state.connected is True


async def test_a_broken_call_of_a_read_only_tool_is_sent_again_on_a_new_session(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    async with open_tcp_proxy(workbench.port) as proxy:
        await connected_engine_server(engine, "bench", f"http://127.0.0.1:{proxy.port}/mcp")
        tools = {t.tool_name: t for t in engine.mcp.get("bench").state.tool_cache}
        assert tools["add"].retry_safe and not tools["echo"].retry_safe
        proxy.drop_next(b'"tools/call"')
        result = await engine.mcp.call("bench", "add", {"a": 20, "b": 22})
    assert result.output == "42" and proxy.dropped == 1
    # the dropped request never reached the server: one call arrived, on a new session
    assert len(workbench.posts("tools/call")) == 1
    assert workbench.sessions_opened == 2


async def test_a_broken_call_of_any_other_tool_fails_as_lost_and_is_not_repeated(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    async with open_tcp_proxy(workbench.port) as proxy:
        await connected_engine_server(engine, "bench", f"http://127.0.0.1:{proxy.port}/mcp")
        proxy.drop_next(b'"tools/call"')
        with pytest.raises(McpConnectionLost) as raised:
            await engine.mcp.call("bench", "echo", {"text": "once"})
        assert raised.value.retryable is True and proxy.dropped == 1
        assert workbench.posts("tools/call") == []
        # the connector reconnects by itself; the next call goes through
        assert (await engine.mcp.call("bench", "echo", {"text": "later"})).output == "later"
