"""Connecting a server: initialize, initialized, paginated tools/list, headers, registry, events."""

from __future__ import annotations

from typing import Any

import httpx

import svc
from tests.fakes.mcp_servers import FakeMcpServer
from tests.helpers import wait_for_event

from .conftest import add_server, connect


async def test_connect_runs_the_handshake_then_lists_tools(
    workbench: FakeMcpServer, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(client, "bench", workbench.url)
    outcome = await connect(client, "bench")
    assert outcome == {
        "ok": True,
        "count": 7,
        "discoveredCount": 7,
        "pendingAuth": False,
        "lastAuthChallenge": None,
        "authorizationUrl": None,
    }
    assert workbench.rpc_methods()[:3] == ["initialize", "notifications/initialized", "tools/list"]
    init = workbench.posts("initialize")[0]
    assert init.session_id is None and "mcp-protocol-version" not in init.headers
    assert init.body["params"]["clientInfo"]["name"] == "svc-engine"
    listing = workbench.posts("tools/list")[0]
    session_id = workbench.posts("notifications/initialized")[0].session_id
    assert session_id and listing.session_id == session_id
    assert listing.headers["mcp-protocol-version"] == init.body["params"]["protocolVersion"]

    ids = sorted(n for n in engine.tools.names() if n.startswith("mcp."))
    assert ids == [
        "mcp.bench.add",
        "mcp.bench.echo",
        "mcp.bench.fail",
        "mcp.bench.forecast",
        "mcp.bench.grow",
        "mcp.bench.hold",
        "mcp.bench.search_issues",
    ]
    connected = await wait_for_event(engine, "mcp.server.connected")
    assert (
        connected.properties["name"] == "bench"
        and connected.properties["serverName"] == "workbench"
    )
    updated = await wait_for_event(engine, "mcp.tools.updated")
    assert updated.properties["count"] == 7

    listed = (await client.get("/mcp")).json()["bench"]
    assert listed["connected"] is True and listed["mcp_session_id"] == session_id
    assert {t["tool_name"] for t in listed["tool_cache"]} >= {"Search-Issues", "add"}


async def test_tools_list_follows_next_cursor_across_pages(
    paged: FakeMcpServer, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(client, "paged", paged.url)
    assert (await connect(client, "paged"))["count"] == 7
    cursors = [(r.body.get("params") or {}).get("cursor") for r in paged.posts("tools/list")]
    assert cursors == [None, "3", "6"]
    tools = (await client.get("/mcp/tools")).json()
    assert [t["namespaced_name"] for t in tools] == [f"mcp.paged.tool_{i:02d}" for i in range(7)]
    row: dict[str, Any] = tools[0]
    assert row["server_name"] == "paged" and row["tool_name"] == "tool_00"
    assert (
        row["input_schema"]["properties"] == {"n": {"type": "integer"}}
        and len(row["schema_hash"]) == 64
    )


async def test_json_and_sse_responses_are_both_understood(
    strict: FakeMcpServer, workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    from svc.mcp import ConnectorInput

    for name, server in (("json", strict), ("sse", workbench)):
        await engine.mcp.add(ConnectorInput(name=name, transport=server.url))
        assert (await engine.mcp.connect(name))["ok"] is True
    assert strict.json_response and not workbench.json_response
    assert (await engine.mcp.call("json", "note_task", {"list_id": "a", "task_title": "b"})).output
    assert (await engine.mcp.call("sse", "echo", {"text": "ok"})).output == "ok"


async def test_a_tools_list_changed_notification_refreshes_the_registry(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    from .conftest import connected_engine_server

    await connected_engine_server(engine, "bench", workbench.url)
    assert (await engine.mcp.call("bench", "grow", {"name": "Sprout"})).output == "added Sprout"
    updated = await wait_for_event(
        engine, "mcp.tools.updated", where=lambda e: e.properties["source"] == "list_changed"
    )
    assert updated.properties["count"] == 8 and updated.properties["changed"] is True
    assert "mcp.bench.sprout" in engine.tools.names()
    assert (await engine.mcp.call("bench", "Sprout", {"text": "hi"})).output == "Sprout: hi"


async def test_a_challenge_while_connecting_is_reported_with_the_authorization_url(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    from tests.fakes.mcp_servers import AUTH_URL, auth_server, open_mcp_server

    gateway = auth_server(guard_listing=True)
    async with open_mcp_server(gateway.server) as server:
        await add_server(client, "gw", server.url)
        outcome = await connect(client, "gw")
        assert outcome["ok"] is False and outcome["pendingAuth"] is True
        assert outcome["authorizationUrl"] == AUTH_URL + "&scope=gateway"
        assert outcome["lastAuthChallenge"]["tool_name"] == "gw"
        assert (
            outcome["error"]
            == "MCP server 'gw' requires authorization: Sign in to the gateway first"
        )
        listed = (await client.get("/mcp")).json()["gw"]
        assert listed["last_auth_challenge"]["authorization_url"] == AUTH_URL + "&scope=gateway"
        assert listed["connected"] is False and listed["tool_cache"] == []
        gateway.authorize()
        assert (await connect(client, "gw"))["ok"] is True
        assert (await client.get("/mcp")).json()["gw"]["last_auth_challenge"] is None
        await client.post("/mcp/gw/disconnect")


async def test_a_refresh_over_an_expired_session_opens_one_new_session(
    workbench: FakeMcpServer, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(client, "bench", workbench.url)
    await connect(client, "bench")
    old_session = engine.mcp.get("bench").state.mcp_session_id
    workbench.expire_sessions()
    refreshed = (await client.post("/mcp/bench/refresh")).json()
    assert refreshed["ok"] is True and refreshed["count"] == 7
    listings = workbench.posts("tools/list")
    assert [(r.session_id == old_session, r.status) for r in listings[-2:]] == [
        (True, 404),
        (False, 200),
    ]
    assert workbench.rpc_methods()[-4:] == [
        "tools/list",
        "initialize",
        "notifications/initialized",
        "tools/list",
    ]
    new_session = engine.mcp.get("bench").state.mcp_session_id
    assert workbench.sessions_opened == 2 and new_session not in (None, old_session)
    assert listings[-1].session_id == new_session
    assert [r for r in workbench.requests if r.method == "DELETE"] == []
    await engine.events.flush()
    updates = [e for e in await engine.events.replay(limit=10_000) if e.type == "mcp.tools.updated"]
    assert len(updates) == 2  # connect, then the refresh


async def test_the_protocol_version_and_session_id_go_with_every_call(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    from .conftest import connected_engine_server

    await connected_engine_server(engine, "bench", workbench.url)
    await engine.mcp.call("bench", "echo", {"text": "x"})
    call = workbench.posts("tools/call")[0]
    state = engine.mcp.get("bench").state
    assert call.session_id == state.mcp_session_id
    assert call.headers["mcp-protocol-version"] == state.protocol_version
    assert (
        "text/event-stream" in call.headers["accept"]
        and "application/json" in call.headers["accept"]
    )
