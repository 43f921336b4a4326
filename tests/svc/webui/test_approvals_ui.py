"""The approvals inbox lists a run's pending permission; approving it there lets the run go on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

import svc
from svc import Settings
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import text_prompt, wait_for_event

from .browser import open_page, run_in_browser, screenshot


async def test_inbox_approves_a_pending_run_permission(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("bash", {"command": "echo approved"}, id="call_9")),
        Turn.reply("finished"),
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
        session = (await client.post("/session", json={"title": "Inbox"})).json()
        run = (
            await client.post(
                f"/session/{session['id']}/prompt_async?return=run", json=text_prompt("go")
            )
        ).json()
        await wait_for_event(engine, "permission.asked", run_id=run["runID"])

        def scenario() -> str:
            with open_page() as page:
                page.goto(f"{engine.url}/admin/#/approvals")
                item = page.locator('.approval[data-source="permissions"]')
                item.wait_for()
                item.get_by_label("Reason").fill("looks harmless")
                screenshot(page, "approvals")
                item.get_by_role("button", name="Approve").click()
                page.locator('.approval[data-source="permissions"]').wait_for(state="detached")
                return page.locator("#src-permissions").inner_text()

        heading = await run_in_browser(scenario)
        finished = await wait_for_event(engine, "session.run.finished", run_id=run["runID"])
    assert heading == "Run permissions (0)"
    assert finished.properties["status"] == "completed"
