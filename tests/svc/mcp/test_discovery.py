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
    assert outcome == {"ok": True, "count": 6, "discoveredCount": 6, "pendingAuth": False,
                       "lastAuthChallenge": None, "authorizationUrl": None}
    assert workbench.rpc_methods()[:3] == ["initialize", "notifications/initialized", "tools/list"]
    init = workbench.posts("initialize")[0]
    assert init.session_id is None and "mcp-protocol-version" not in init.headers
    assert init.body["params"]["clientInfo"]["name"] == "svc-engine"
    listing = workbench.posts("tools/list")[0]
    session_id = workbench.posts("notifications/initialized")[0].session_id
    assert session_id and listing.session_id == session_id
    assert listing.headers["mcp-protocol-version"] == init.body["params"]["protocolVersion"]

    ids = sorted(n for n in engine.tools.names() if n.startswith("mcp."))
    assert ids == ["mcp.bench.add", "mcp.bench.echo", "mcp.bench.fail", "mcp.bench.forecast",
                   "mcp.bench.hold", "mcp.bench.search_issues"]
    connected = await wait_for_event(engine, "mcp.server.connected")
    assert connected.properties["name"] == "bench" and connected.properties["serverName"] == "workbench"
    updated = await wait_for_event(engine, "mcp.tools.updated")
    assert updated.properties["count"] == 6

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
    assert row["input_schema"]["properties"] == {"n": {"type": "integer"}} and len(row["schema_hash"]) == 64

