"""Capabilities over HTTP: discovery from the live tool registry (built-in and MCP),
stored bindings, and resolution."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

import svc
from tests.fakes.mcp_servers import FakeMcpServer, open_mcp_server, workbench_server


@pytest.fixture
async def workbench() -> AsyncIterator[FakeMcpServer]:
    async with open_mcp_server(workbench_server()) as server:
        yield server


async def connect_mcp(client: httpx.AsyncClient, name: str, url: str) -> None:
    added = await client.post("/mcp", json={"name": name, "transport": url})
    assert added.status_code == 200, added.text
    connected = await client.post(f"/mcp/{name}/connect")
    assert connected.json()["ok"] is True, connected.text


async def test_discovery_lists_builtin_and_mcp_providers(
    client: httpx.AsyncClient, engine: svc.Engine, workbench: FakeMcpServer
) -> None:
    await connect_mcp(client, "bench", workbench.url)
    body = (await client.get("/capabilities/discovery")).json()
    by_id = {c["capability_id"]: c["providers"] for c in body["capabilities"]}
    assert body["tools"] == len(engine.tools)
    assert by_id["read"][0]["kind"] == "builtin"
    echo = by_id["bench.echo"][0]
    assert echo["kind"] == "mcp" and echo["server"] == "bench" and echo["tool"] in engine.tools
    assert {
        "server": "bench",
        "capabilities": sorted(c for c in by_id if c.startswith("bench.")),
    } in body["mcp_servers"]


async def test_bindings_are_stored_and_validated(client: httpx.AsyncClient) -> None:
    empty = (await client.get("/capabilities/bindings")).json()
    assert empty["bindings"] == {} and empty["count"] == 0
    saved = await client.put(
        "/capabilities/bindings",
        json={"bindings": {"repohost.create_pull_request": {"tool": "bash"}, "files.read": "read"}},
    )
    assert saved.status_code == 200 and saved.json()["ok"] is True
    got = (await client.get("/capabilities/bindings")).json()
    assert got["bindings"]["files.read"] == {"tool": "read"} and got["count"] == 2
    as_map = await client.put("/capabilities/bindings", json={"only.one": {"tool": "read"}})
    assert as_map.json()["count"] == 1
    bad = await client.put("/capabilities/bindings", json={"bindings": {"x": 5}})
    assert bad.status_code == 400 and bad.json()["field"] == "bindings.x"


async def test_resolve_prefers_bindings_then_discovery(
    client: httpx.AsyncClient, workbench: FakeMcpServer
) -> None:
    await connect_mcp(client, "bench", workbench.url)
    await client.put(
        "/capabilities/bindings",
        json={"bindings": {"files.read": {"tool": "read"}, "gone.tool": {"tool": "mcp.x.y"}}},
    )
    body = (
        await client.post(
            "/capabilities/resolve",
            json={
                "workflow_id": "wf-pr",
                "required_capabilities": [
                    "files.read",
                    "repohost.echo",
                    "read",
                    "nope",
                    "gone.tool",
                ],
            },
        )
    ).json()
    by_id = {r["capability_id"]: r for r in body["resolved"]}
    assert by_id["files.read"]["status"] == "bound" and by_id["files.read"]["tool"] == "read"
    # Another server's tool of the same name provides it when it is the only one.
    assert by_id["repohost.echo"]["status"] == "discovered"
    assert by_id["repohost.echo"]["provider"]["server"] == "bench"
    assert by_id["read"]["source"] == "discovery"
    assert (
        by_id["gone.tool"]["status"] == "missing"
        and "not registered" in by_id["gone.tool"]["reason"]
    )
    assert body["missing"] == ["nope", "gone.tool"] and body["ok"] is False
    assert body["workflow_id"] == "wf-pr"
    none = await client.post("/capabilities/resolve", json={})
    assert none.status_code == 400 and none.json()["field"] == "required_capabilities"
