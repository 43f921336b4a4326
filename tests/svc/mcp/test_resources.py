"""MCP resources through the connector (``resources/list``, ``resources/read`` on a real SDK
server), and catalog entries as TOML."""

from __future__ import annotations

import tomllib

import httpx

import svc
from tests.fakes.mcp_servers import FakeMcpServer

from .conftest import add_server, connect


async def test_resources_of_connected_servers_are_listed_and_read(
    client: httpx.AsyncClient, engine: svc.Engine, workbench: FakeMcpServer, strict: FakeMcpServer
) -> None:
    assert (await client.get("/mcp/resources")).json() == []
    await add_server(client, "bench", workbench.url)
    await add_server(client, "plain", strict.url)
    await connect(client, "bench")
    await connect(client, "plain")

    listed = await client.get("/mcp/resources")
    assert listed.status_code == 200 and "x-svc-mcp-failed" not in listed.headers
    rows = listed.json()
    assert sorted((r["server"], r["uri"], r["name"]) for r in rows) == [
        ("bench", "docs://changelog", "changelog"),
        ("bench", "docs://readme", "readme"),
    ]
    readme = next(r for r in rows if r["name"] == "readme")
    assert readme["mimeType"] == "text/markdown" and readme["description"]
    # The server without the resources capability was never asked.
    assert "resources/list" not in strict.rpc_methods()

    read = await client.post("/mcp/bench/resources/read", json={"uri": "docs://readme"})
    assert read.status_code == 200, read.text
    body = read.json()
    assert body["server"] == "bench" and body["uri"] == "docs://readme"
    assert body["contents"][0]["text"] == "# Workbench\n\nTools for tests.\n"
    assert workbench.posts("resources/read")[0].body["params"]["uri"] == "docs://readme"

    unknown = await client.post("/mcp/bench/resources/read", json={"uri": "docs://nope"})
    assert unknown.status_code >= 400 and unknown.json()["code"]
    missing = await client.post("/mcp/bench/resources/read", json={})
    assert missing.status_code == 400 and missing.json()["field"] == "uri"
    nobody = await client.post("/mcp/ghost/resources/read", json={"uri": "docs://readme"})
    assert nobody.status_code == 404


async def test_a_catalog_entry_as_toml(client: httpx.AsyncClient) -> None:
    catalog = (await client.get("/mcp/catalog")).json()
    entry = catalog["servers"][0]
    response = await client.get(f"/mcp/catalog/{entry['slug']}/toml")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/toml")
    parsed = tomllib.loads(response.text)
    (table,) = parsed["mcp_servers"].values()
    assert table["enabled"] is True
    if entry.get("transport_url"):
        assert table["url"] == entry["transport_url"]
    unknown = await client.get("/mcp/catalog/no-such-server/toml")
    assert unknown.status_code == 404
