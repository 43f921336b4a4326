"""The chat view's controls in real Chromium: a question answered from the page lets the run go
on; the cancel button stops a run that is waiting on its model."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import trio

import svc
from svc import Settings
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import wait_for_event

from .browser import open_page, run_in_browser, screenshot


async def test_a_question_is_answered_and_a_run_cancelled_from_the_chat_view(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    held = trio.Event()  # never set: the second run waits on its model until cancelled
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall(
                "question",
                {"questions": [{"question": "Which database?", "options": ["Postgres", "SQLite"]}]},
            )
        ),
        Turn.reply("Setting it up with SQLite."),
        Turn(chunks=["Thinking ", "about it"], gate=held, gate_after=1),
    )
    settings = make_settings(
        web_ui=True,
        default_provider="openai",
        providers={
            "openai": {"url": fake_model.url, "api_key": "sk-test", "default_model": "fake-model"}
        },
    )
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        session = (await client.post("/session", json={"title": "Controls"})).json()
        url = f"{engine.url}/admin/#/session/{session['id']}"

        def scenario() -> dict[str, Any]:
            with open_page() as page:
                page.goto(url)
                page.locator(".stream-state.live").wait_for()
                page.get_by_role("textbox", name="Prompt").fill("set up a database")
                page.get_by_role("button", name="Send").click()
                asked = page.get_by_role("group", name="Question from the run")
                asked.get_by_role("button", name="SQLite").wait_for()
                question = asked.inner_text()
                screenshot(page, "chat-question")
                asked.get_by_role("button", name="SQLite").click()
                page.locator('.run-status[data-status="completed"]').wait_for()
                answered = page.locator(".msg.assistant .part-text").all_inner_texts()
                page.get_by_role("textbox", name="Prompt").fill("think for a long time")
                page.get_by_role("button", name="Send").click()
                page.get_by_text("Thinking").wait_for()
                screenshot(page, "chat-running")
                page.get_by_role("button", name="Cancel run").click()
                page.locator('.run-status[data-status="cancelled"]').wait_for()
                cancel_gone = page.get_by_role("button", name="Cancel run").count() == 0
                return {"question": question, "answered": answered, "cancel_gone": cancel_gone}

        result = await run_in_browser(scenario)
        cancelled = await wait_for_event(
            engine,
            "session.run.finished",
            session_id=session["id"],
            where=lambda e: e.properties.get("status") == "cancelled",
        )
    assert "Which database?" in result["question"]
    assert result["answered"][-1] == "Setting it up with SQLite."
    # The answer reached the waiting run: the model saw it as the question tool's result.
    assert "SQLite" in json.dumps(fake_model.requests[1].body["messages"][-1])
    assert result["cancel_gone"]
    assert cancelled.properties["status"] == "cancelled"
