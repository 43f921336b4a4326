"""The control panel: the same application with no token in the browser; Host/Origin refusal."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import trio

import svc
from svc import Settings
from svc.webui.panel.config import PanelConfig
from svc.webui.panel.server import RunningPanel, serve_panel
from tests.fakes.turns import Turn
from tests.helpers import read_sse

from .browser import open_page, run_in_browser, screenshot

TOKEN = "tk_fedcba9876543210fedcba9876543210"


@asynccontextmanager
async def open_panel(engine_url: str, **extra: Any) -> AsyncIterator[RunningPanel]:
    config = PanelConfig(
        host="127.0.0.1", port=0, engine_url=engine_url, engine_token=TOKEN, **extra
    )
    async with trio.open_nursery() as nursery:
        running: RunningPanel = await nursery.start(serve_panel, config)
        yield running
        nursery.cancel_scope.cancel()


def _settings(make_settings: Callable[..., Settings], fake_model: Any) -> Settings:
    return make_settings(
        api_token=TOKEN,
        default_provider="openai",
        providers={
            "openai": {"url": fake_model.url, "api_key": "sk-test", "default_model": "fake-model"}
        },
    )


async def test_panel_serves_the_application_without_the_token_in_the_browser(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    fake_model.enqueue(Turn.reply("Proxied answer streamed through the panel."))
    async with (
        svc.open_engine(_settings(make_settings, fake_model), serve_http=True) as engine,
        open_panel(engine.url or "") as panel,
    ):

        def scenario() -> dict[str, Any]:
            headers: list[dict[str, str]] = []
            bodies: list[str] = []
            with open_page() as page:
                page.on("request", lambda r: headers.append(dict(r.headers)))
                page.on("request", lambda r: bodies.append(r.post_data or ""))
                page.goto(panel.url + "/")
                page.get_by_role("heading", name="Sessions").wait_for()
                page.get_by_label("Title").fill("Via the panel")
                page.get_by_role("button", name="Create session").click()
                page.locator(".stream-state.live").wait_for()
                page.get_by_role("textbox", name="Prompt").fill("hello panel")
                page.get_by_role("button", name="Send").click()
                page.locator('.run-status[data-status="completed"]').wait_for()
                screenshot(page, "panel-chat")
                texts = page.locator(".msg.assistant .part-text").all_inner_texts()
                page.goto(panel.url + "/agents")
                page.get_by_role("heading", name="Automations", exact=True).wait_for()
                html = page.content()
                return {
                    "texts": texts,
                    "headers": headers,
                    "bodies": bodies,
                    "html": html,
                    "hash": page.evaluate("location.hash"),
                }

        result = await run_in_browser(scenario)
        async with httpx.AsyncClient() as check:
            listed = await check.get(f"{engine.url}/session", headers={"X-Agent-Token": TOKEN})
        sessions = listed.json()
    assert result["texts"] == ["Proxied answer streamed through the panel."]
    assert result["hash"] == "#/automations"
    for sent in result["headers"]:
        assert all(TOKEN not in value for value in sent.values())
    assert all(TOKEN not in body for body in result["bodies"])
    assert TOKEN not in result["html"]
    assert [s["title"] for s in sessions] == ["Via the panel"]


async def test_panel_refuses_foreign_host_and_origin(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    async with (
        svc.open_engine(_settings(make_settings, fake_model), serve_http=True) as engine,
        open_panel(engine.url or "") as panel,
        httpx.AsyncClient(base_url=panel.url) as client,
    ):
        port = panel.url.rsplit(":", 1)[1]
        ok = await client.get("/engine/session")
        assert ok.status_code == 200
        assert (
            await client.get("/engine/session", headers={"Host": f"localhost:{port}"})
        ).status_code == 200
        for headers in [
            {"Host": f"evil.example:{port}"},
            {"Host": "evil.example"},
            {"Origin": "http://evil.example"},
            {"Origin": f"http://evil.example:{port}"},
            {"Origin": "null"},
            {"Origin": f"http://127.0.0.1:{int(port) + 1}"},
        ]:
            refused = await client.get("/engine/session", headers=headers)
            assert refused.status_code == 403, headers
        same = await client.get("/engine/session", headers={"Origin": f"http://127.0.0.1:{port}"})
        assert same.status_code == 200


async def test_panel_with_an_access_token_requires_it(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    async with (
        svc.open_engine(_settings(make_settings, fake_model), serve_http=True) as engine,
        open_panel(engine.url or "", access_token="panel-secret") as panel,
        httpx.AsyncClient(base_url=panel.url) as client,
    ):
        assert (await client.get("/engine/session")).status_code == 401
        assert (
            await client.get("/engine/session", headers={"X-Agent-Token": TOKEN})
        ).status_code == 401
        allowed = await client.get("/engine/session", headers={"X-Agent-Token": "panel-secret"})
        assert allowed.status_code == 200
        assert (await client.get("/")).status_code == 200


async def test_panel_forwards_bodies_raw_paths_and_streams_and_caps_bodies(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    mib = 1024 * 1024
    async with (
        svc.open_engine(_settings(make_settings, fake_model), serve_http=True) as engine,
        open_panel(engine.url or "", max_body_bytes=2 * mib) as panel,
        httpx.AsyncClient(base_url=panel.url, timeout=30) as client,
    ):
        created = await client.post("/engine/session", json={"title": "Through the panel"})
        assert created.status_code == 200 and created.json()["title"] == "Through the panel"
        json_body = {"Content-Type": "application/json"}
        too_big = await client.post(
            "/engine/session", content=b"x" * (2 * mib + 1), headers=json_body
        )
        assert too_big.status_code == 413 and "limitBytes" not in too_big.json()  # the panel's
        # under the panel's limit: forwarded, and the engine applies the route's own
        over_route = await client.post(
            "/engine/session", content=b"x" * (mib + 1), headers=json_body
        )
        assert over_route.status_code == 413 and over_route.json()["limitBytes"] == mib
        # The raw path goes to the engine as sent: an encoded separator is not decoded on the way.
        encoded = await client.get("/engine/session%2Fnope")
        assert encoded.status_code == 404
        async with client.stream(
            "GET", "/engine/event", headers={"Accept": "text/event-stream"}
        ) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert "x-agent-token" not in {k.lower() for k in stream.headers}
            (first,) = await read_sse(stream, 1)
            assert "server.connected" in first["data"]


def test_the_panel_forwards_bodies_as_large_as_the_engine_takes(
    make_settings: Callable[..., Settings],
) -> None:
    assert PanelConfig.from_settings(make_settings()).max_body_bytes == 32 * 1024 * 1024
    larger = make_settings(max_import_body_bytes=64 * 1024 * 1024)
    assert PanelConfig.from_settings(larger).max_body_bytes == 64 * 1024 * 1024
