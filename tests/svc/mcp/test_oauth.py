"""OAuth for MCP connectors against a real OAuth-guarded MCP server (the SDK's server auth
pieces on loopback): start, the person's consent, the callback, tokens used by the connector
without a restart, refreshed before they expire, never shown, and logout."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

import svc
from tests.fakes.mcp_oauth_server import open_oauth_mcp_server
from tests.fakes.mcp_servers import FakeMcpServer

from .conftest import add_server


@pytest.fixture
async def guarded() -> AsyncIterator[FakeMcpServer]:
    async with open_oauth_mcp_server(token_ttl_s=3600) as server:
        yield server


@pytest.fixture
async def short_lived() -> AsyncIterator[FakeMcpServer]:
    # Tokens live 30 s, less than the refresh margin: every new session refreshes first.
    async with open_oauth_mcp_server(token_ttl_s=30) as server:
        yield server


async def consent(client: httpx.AsyncClient, name: str) -> dict[str, str]:
    """What the person does: open the authorization URL, come back with code and state."""
    started = (await client.post(f"/mcp/{name}/auth", json={})).json()
    assert started["state"] == "pending", started
    url = started["authorizationUrl"]
    async with httpx.AsyncClient() as browser:
        answer = await browser.get(url, follow_redirects=False)
    assert answer.status_code in (302, 307), answer.text
    query = parse_qs(urlsplit(answer.headers["location"]).query)
    return {"code": query["code"][0], "state": query["state"][0]}


async def test_authorize_then_the_connector_uses_the_token(
    client: httpx.AsyncClient, engine: svc.Engine, guarded: FakeMcpServer
) -> None:
    await add_server(client, "guarded", guarded.url)
    refused = (await client.post("/mcp/guarded/connect")).json()
    assert refused["ok"] is False
    assert (await client.get("/mcp/guarded/auth")).json()["state"] == "none"

    code = await consent(client, "guarded")
    done = (await client.post("/mcp/guarded/auth/callback", json=code)).json()
    assert done["state"] == "authorized" and done["connected"] is True, done
    tools = [t["tool_name"] for t in (await client.get("/mcp/tools")).json()]
    assert tools == ["whoami"]
    result = await engine.mcp.call("guarded", "whoami", {})
    assert "an authorized client" in (result.output or "")

    status = (await client.get("/mcp/guarded/auth")).json()
    assert status["state"] == "authorized" and status["hasTokens"] and status["refreshable"]
    (access,) = guarded.auth.access  # type: ignore[attr-defined]
    replies = [
        (await client.get("/mcp")).text,
        (await client.get("/mcp/guarded/auth")).text,
        str(done),
        str([e.to_record() for e in await engine.events.replay(limit=100_000)]),
    ]
    assert all(access not in text for text in replies)

    # `authenticate` with a stored token just (re)connects.
    again = (await client.post("/mcp/guarded/auth/authenticate", json={})).json()
    assert again["connected"] is True

    out = (await client.delete("/mcp/guarded/auth")).json()
    assert out["removed"] is True and out["state"] == "none"
    assert (await client.get("/mcp/guarded/auth")).json()["hasTokens"] is False
    assert (await client.get("/mcp")).json()["guarded"]["connected"] is False


async def test_a_token_near_its_expiry_is_refreshed_before_use(
    client: httpx.AsyncClient, short_lived: FakeMcpServer
) -> None:
    await add_server(client, "brief", short_lived.url)
    code = await consent(client, "brief")
    done = (await client.post("/mcp/brief/auth/callback", json=code)).json()
    assert done["connected"] is True, (done, (await client.get("/mcp")).json())
    refreshes = short_lived.auth.refreshes  # type: ignore[attr-defined]
    await client.post("/mcp/brief/disconnect")
    reconnected = (await client.post("/mcp/brief/connect")).json()
    assert reconnected["ok"] is True, reconnected
    assert short_lived.auth.refreshes > refreshes  # type: ignore[attr-defined]


async def test_a_callback_without_a_waiting_flow_is_a_conflict(
    client: httpx.AsyncClient, guarded: FakeMcpServer
) -> None:
    await add_server(client, "guarded", guarded.url)
    stray = await client.post("/mcp/guarded/auth/callback", json={"code": "x", "state": "y"})
    assert stray.status_code == 409
    missing = await client.post("/mcp/guarded/auth/callback", json={})
    assert missing.status_code == 400 and missing.json()["field"] == "code"
    unknown = await client.post("/mcp/nobody/auth", json={})
    assert unknown.status_code == 404


async def test_the_browser_redirect_completes_the_flow_without_a_token(
    make_settings: Callable[..., Any], guarded: FakeMcpServer
) -> None:
    settings = make_settings(api_token="tok-oauth-redirect")
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(
            base_url=engine.url or "", headers={"X-Svc-Token": "tok-oauth-redirect"}
        ) as client,
    ):
        await _redirect_flow(engine, client, guarded)


async def _redirect_flow(
    engine: svc.Engine, client: httpx.AsyncClient, guarded: FakeMcpServer
) -> None:
    await add_server(client, "guarded", guarded.url)
    started = (await client.post("/mcp/guarded/auth", json={})).json()
    async with httpx.AsyncClient() as browser:
        answer = await browser.get(started["authorizationUrl"], follow_redirects=False)
        back = answer.headers["location"]
        assert back.startswith(f"{engine.url}/mcp/guarded/auth/callback?"), back
        query = parse_qs(urlsplit(back).query)

        # A guessed state is refused before the flow sees it: the flow keeps waiting.
        forged = await browser.get(
            f"{engine.url}/mcp/guarded/auth/callback",
            params={"code": query["code"][0], "state": "guessed"},
        )
        assert forged.status_code == 403
        assert forged.json()["code"] == "OAUTH_STATE_MISMATCH"
        assert (await client.get("/mcp/guarded/auth")).json()["state"] == "pending"
        missing = await browser.get(f"{engine.url}/mcp/guarded/auth/callback")
        assert missing.status_code == 400 and missing.json()["field"] == "code"

        # The person's browser (no engine token) follows the real redirect; other routes
        # still want the token.
        assert (await browser.get(f"{engine.url}/mcp/guarded/auth")).status_code == 401
        page = await browser.get(back)
    assert page.status_code == 200 and "authorized" in page.text
    assert page.headers["content-type"].startswith("text/html")
    status = (await client.get("/mcp/guarded/auth")).json()
    assert status["state"] == "authorized" and status["connected"] is True, status
    assert [t["tool_name"] for t in (await client.get("/mcp/tools")).json()] == ["whoami"]
