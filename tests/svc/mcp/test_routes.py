"""The /mcp routes: shapes, validation, lifecycle operations."""

from __future__ import annotations

import httpx

import svc
from tests.fakes.mcp_servers import FakeMcpServer
from tests.helpers import wait_for_event

from .conftest import add_server, connect


async def test_post_validates_the_body_naming_the_field(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    cases = [
        ({"transport": "http://127.0.0.1/mcp"}, "name"),
        ({"name": "x", "transport": "https://u:p@example.com/mcp"}, "transport"),
        ({"name": "x", "transport": "stdio:server"}, "transport"),
        ({"name": "x", "transport": "http://127.0.0.1/mcp", "headers": {"X": 5}}, "headers[X]"),
        ({"name": "x", "transport": "http://127.0.0.1/mcp", "enabled": "yes"}, "enabled"),
        (
            {"name": "x", "transport": "http://127.0.0.1/mcp", "allowed_tools": "add"},
            "allowed_tools",
        ),
        ({"name": "a/b", "transport": "http://127.0.0.1/mcp"}, "name"),
    ]
    for body, field in cases:
        response = await client.post("/mcp", json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["field"] == field, (body, response.json())
    assert (await client.get("/mcp")).json() == {}


async def test_get_shows_header_names_with_redacted_values(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(
        client,
        "gw",
        "http://127.0.0.1:9/mcp",
        headers={"Authorization": "Bearer sk-route-secret-1", "X-User": "ops-bot"},
        allowed_tools=["a", "a", " b "],
    )
    listed = (await client.get("/mcp")).json()
    assert "sk-route-secret-1" not in (await client.get("/mcp")).text
    entry = listed["gw"]
    assert entry["headers"] == {"Authorization": "[REDACTED]", "X-User": "[REDACTED]"}
    assert (
        entry["enabled"] is True
        and entry["connected"] is False
        and entry["allowed_tools"] == ["a", "b"]
    )
    assert entry["tool_prefix"] == "mcp.gw." and entry["tool_cache"] == []


async def test_posting_an_existing_name_updates_it_and_redacted_values_round_trip(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(
        client, "gw", "http://127.0.0.1:9/mcp", headers={"Authorization": "Bearer keep-me-123"}
    )
    shown = (await client.get("/mcp")).json()["gw"]
    await add_server(
        client, "gw", "http://127.0.0.1:10/mcp", headers=shown["headers"], enabled=False
    )
    config = engine.mcp.get("gw").config
    assert config.transport == "http://127.0.0.1:10/mcp" and config.enabled is False
    assert dict(config.headers) == {"Authorization": "Bearer keep-me-123"}
    assert config.created_at_ms == shown["created_at_ms"]
    assert list((await client.get("/mcp")).json()) == ["gw"]


async def test_names_that_share_a_tool_prefix_conflict(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(client, "My Server", "http://127.0.0.1:9/mcp")
    response = await client.post(
        "/mcp", json={"name": "my_server", "transport": "http://127.0.0.1:9/mcp"}
    )
    assert response.status_code == 409 and response.json()["code"] == "MCP_NAME_CONFLICT"
    assert response.json()["field"] == "name"


async def test_unknown_names_are_404(client: httpx.AsyncClient, engine: svc.Engine) -> None:
    for method, path in (
        ("POST", "/mcp/nope/connect"),
        ("POST", "/mcp/nope/refresh"),
        ("POST", "/mcp/nope/disconnect"),
        ("PATCH", "/mcp/nope"),
        ("DELETE", "/mcp/nope"),
    ):
        response = await client.request(method, path, json={})
        assert response.status_code == 404 and response.json()["code"] == "MCP_NOT_FOUND", (
            method,
            path,
        )


async def test_connect_failure_is_ok_false_and_clears_state(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(client, "down", "http://127.0.0.1:9/mcp")
    outcome = await connect(client, "down")
    assert (
        outcome["ok"] is False
        and outcome["code"] == "MCP_CONNECT_FAILED"
        and outcome["retryable"] is True
    )
    assert outcome["pendingAuth"] is False and outcome["authorizationUrl"] is None
    entry = (await client.get("/mcp")).json()["down"]
    assert (
        entry["connected"] is False
        and entry["tool_cache"] == []
        and entry["mcp_session_id"] is None
    )
    assert "unreachable" in entry["last_error"]
    event = await wait_for_event(engine, "mcp.server.disconnected")
    assert event.properties["reason"] == "connect_failed"


async def test_lifecycle_connect_refresh_disconnect_patch_delete(
    workbench: FakeMcpServer, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(client, "bench", workbench.url)
    assert (await connect(client, "bench"))["count"] == 7
    session_id = engine.mcp.get("bench").state.mcp_session_id

    refreshed = (await client.post("/mcp/bench/refresh")).json()
    assert refreshed == {"ok": True, "count": 7, "discoveredCount": 7, "changed": False}
    assert workbench.posts("tools/list")[-1].session_id == session_id  # same session, re-listed

    patched = await client.patch("/mcp/bench", json={"allowed_tools": ["add", "echo"]})
    assert patched.json() == {"ok": True}
    assert [t["tool_name"] for t in (await client.get("/mcp/tools")).json()] == ["add", "echo"]
    await client.patch("/mcp/bench", json={"allowed_tools": None})
    assert len((await client.get("/mcp/tools")).json()) == 7

    disabled = await client.patch("/mcp/bench", json={"enabled": False})
    assert disabled.json()["ok"] is True
    assert (await client.get("/mcp/tools")).json() == []
    assert not [n for n in engine.tools.names() if n.startswith("mcp.bench.")]
    refused = await connect(client, "bench")
    assert refused["ok"] is False and refused["code"] == "MCP_SERVER_DISABLED"
    enabled = (await client.patch("/mcp/bench", json={"enabled": True})).json()
    assert (
        enabled["ok"] is True
        and enabled["connect"]["ok"] is True
        and enabled["connect"]["count"] == 7
    )

    assert (await client.post("/mcp/bench/disconnect")).json() == {
        "ok": True,
        "removedToolCount": 7,
    }
    await workbench.wait_until(lambda: any(r.method == "DELETE" for r in workbench.requests))
    deleted_session = next(r for r in workbench.requests if r.method == "DELETE").session_id
    assert deleted_session is not None
    assert engine.mcp.get("bench").state.connected is False

    await connect(client, "bench")
    removed = (await client.delete("/mcp/bench")).json()
    assert removed == {"ok": True, "removedToolCount": 7}
    # Disabling, disconnecting and deleting each ended their session with a DELETE.
    assert len([r for r in workbench.requests if r.method == "DELETE"]) == 3
    assert (await client.get("/mcp")).json() == {}
    assert not [
        n
        for n in engine.tools.names()
        if n.startswith("mcp.")
        and n not in ("mcp_list", "mcp_list_catalog", "mcp_request_capability", "mcp_debug")
    ]
    assert (await client.post("/mcp/bench/connect")).status_code == 404


async def test_refresh_failure_is_an_error_with_the_removed_count(
    workbench: FakeMcpServer, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(client, "bench", workbench.url)
    await connect(client, "bench")
    await workbench.kill()
    response = await client.post("/mcp/bench/refresh")
    assert response.status_code == 502
    body = response.json()
    assert body["code"] == "MCP_REFRESH_FAILED" and body["retryable"] is True
    assert body["removedToolCount"] == 7 and body["pendingAuth"] is False
    assert (await client.get("/mcp/tools")).json() == []
    assert (await client.get("/mcp")).json()["bench"]["tool_cache"] == []
