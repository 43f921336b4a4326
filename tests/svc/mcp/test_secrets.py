"""Connector header values reach the server and nowhere else: not responses, events or logs."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator

import httpx
import pytest

import svc
from svc import Settings
from svc.logs import JsonFormatter
from tests.fakes.mcp_servers import FakeMcpServer

from .conftest import add_server, connect

SECRETS = (
    "Bearer sk-header-secret-123",
    "sk-header-secret-123",
    "xkey-secret-456",
    "env-secret-789",
)


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings(env={"GW_TOKEN": "env-secret-789"})


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """Everything logged (DEBUG and up, SDK and HTTP libraries included), as the engine formats
    it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


async def test_header_values_are_sent_but_never_shown_published_or_logged(
    workbench: FakeMcpServer, log_lines: io.StringIO, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(
        client,
        "bench",
        workbench.url,
        headers={
            "Authorization": "Bearer sk-header-secret-123",
            "X-Api-Key": "xkey-secret-456",
            "X-Env-Token": "${env:GW_TOKEN}",
        },
    )
    assert (await connect(client, "bench"))["ok"] is True
    await client.post("/mcp/bench/refresh")
    assert (await engine.mcp.call("bench", "echo", {"text": "hello"})).output == "hello"
    await client.post("/mcp/bench/disconnect")
    await workbench.wait_until(lambda: any(r.method == "DELETE" for r in workbench.requests))

    for request in workbench.requests:
        assert request.headers["authorization"] == "Bearer sk-header-secret-123"
        assert request.headers["x-api-key"] == "xkey-secret-456"
        assert request.headers["x-env-token"] == "env-secret-789"

    shown = [(await client.get(path)).text for path in ("/mcp", "/mcp/tools", "/mcp/catalog")]
    await engine.events.flush()
    published = [e.data.decode() for e in await engine.events.replay(limit=100_000)]
    logged = log_lines.getvalue()
    assert "Authorization" in shown[0] and logged  # the header names are listed; logging happened
    for secret in SECRETS:
        for text in (*shown, *published, logged):
            assert secret not in text


async def test_an_unset_environment_reference_fails_the_connect_naming_the_header(
    workbench: FakeMcpServer, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await add_server(client, "bench", workbench.url, headers={"X-Key": "${env:NOT_SET_ANYWHERE}"})
    outcome = await connect(client, "bench")
    assert (
        outcome["ok"] is False
        and "X-Key" in outcome["error"]
        and "NOT_SET_ANYWHERE" in outcome["error"]
    )
    assert workbench.requests == []


async def test_a_credential_echoed_back_by_the_server_is_redacted_from_errors(
    log_lines: io.StringIO, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    from svc.mcp import McpCallFailed, McpToolError
    from tests.fakes.mcp_servers import EchoingServer, open_mcp_server

    careless = EchoingServer()
    async with open_mcp_server(careless.server) as server:
        await add_server(
            client, "echo", server.url, headers={"Authorization": "Bearer sk-header-secret-123"}
        )
        assert (await connect(client, "echo"))["ok"] is True
        with pytest.raises(McpToolError) as tool_error:
            await engine.mcp.call("echo", "whoami", {})
        assert tool_error.value.message == "token rejected: [REDACTED]"
        assert tool_error.value.extra["structuredContent"] == {"sent": "[REDACTED]"}
        with pytest.raises(McpCallFailed) as rpc_error:
            await engine.mcp.call("echo", "check", {})
        assert rpc_error.value.message.endswith("invalid credentials: [REDACTED]")

        careless.reject_listing = True
        refreshed = await client.post("/mcp/echo/refresh")
        assert (
            refreshed.status_code == 502
            and refreshed.json()["error"] == "credentials [REDACTED] are revoked"
        )
        shown = [refreshed.text, (await client.get("/mcp")).text]
        await client.post("/mcp/echo/disconnect")
    assert server.requests[0].headers["authorization"] == "Bearer sk-header-secret-123"
    await engine.events.flush()
    published = [e.data.decode() for e in await engine.events.replay(limit=100_000)]
    for secret in SECRETS[:2]:
        for text in (*shown, *published, log_lines.getvalue()):
            assert secret not in text
