"""A dropped SSE stream: the page says so, resumes with Last-Event-ID, shows every event once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import trio

import svc
from svc import Settings
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event

from .browser import open_page, run_in_browser, screenshot
from .relay import open_relay

WORDS = [f"w{i:02d}" for i in range(40)]


async def test_dropped_stream_reconnects_and_every_delta_shows_once(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    gate = trio.Event()
    answer = " ".join(WORDS)
    fake_model.enqueue(Turn.reply(answer, gate=gate, gate_after=10))
    settings = make_settings(
        web_ui=True,
        default_provider="openai",
        providers={
            "openai": {"url": fake_model.url, "api_key": "sk-test", "default_model": "fake-model"}
        },
    )
    async with svc.open_engine(settings, serve_http=True) as engine:
        async with httpx.AsyncClient(base_url=engine.url or "") as client:
            session = (await client.post("/session", json={"title": "Drop"})).json()
        port = int((engine.url or "").rsplit(":", 1)[1])
        async with open_relay(port) as relay:

            async def drop_and_finish() -> None:
                relay.refusing = True
                relay.cut_all()

            async def release_and_wait() -> None:
                gate.set()
                await wait_for_event(engine, "session.run.finished", session_id=session["id"])

            def resume() -> None:
                relay.refusing = False

            def scenario() -> dict[str, Any]:
                with open_page() as page:
                    page.goto(f"http://127.0.0.1:{relay.port}/admin/#/session/{session['id']}")
                    page.locator(".stream-state.live").wait_for()
                    page.get_by_role("textbox", name="Prompt").fill("stream please")
                    page.get_by_role("button", name="Send").click()
                    page.locator(".part-text", has_text="w09").wait_for()
                    trio.from_thread.run(drop_and_finish)
                    page.locator(".stream-state.reconnecting").wait_for()
                    screenshot(page, "chat-reconnecting")
                    # The rest of the run happens while the page cannot hear it.
                    trio.from_thread.run(release_and_wait)
                    trio.from_thread.run_sync(resume)
                    page.locator('.run-status[data-status="completed"]').wait_for()
                    page.locator(".stream-state.live").wait_for()
                    return {
                        "texts": page.locator(".msg.assistant .part-text").all_inner_texts(),
                        "users": page.locator(".msg.user .part-text").all_inner_texts(),
                    }

            result = await run_in_browser(scenario)
            assert relay.cuts == 1
    assert result["texts"] == [answer]
    assert result["users"] == ["stream please"]
