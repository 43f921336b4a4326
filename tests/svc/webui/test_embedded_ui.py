"""The embedded application in real headless Chromium: token, sessions, a streamed run, an ask."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import svc
from svc import Settings
from tests.fakes.turns import FakeToolCall, Turn

from .browser import open_page, run_in_browser, screenshot

TOKEN = "tk_0123456789abcdef0123456789abcdef"


@pytest.fixture
def ui_settings(make_settings: Callable[..., Settings], fake_model: Any) -> Settings:
    return make_settings(
        api_token=TOKEN,
        web_ui=True,
        default_provider="openai",
        providers={
            "openai": {"url": fake_model.url, "api_key": "sk-test", "default_model": "fake-model"}
        },
    )


@pytest.fixture
async def ui_engine(ui_settings: Settings) -> AsyncIterator[svc.Engine]:
    async with svc.open_engine(ui_settings, serve_http=True) as eng:
        yield eng


async def test_embedded_ui_asks_for_token_streams_a_run_and_answers_a_permission(
    ui_engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall("bash", {"command": "echo from-the-tool"}, id="call_1"),
            text="Let me run it.",
        ),
        Turn.reply("The tool said from-the-tool and all is done."),
    )
    url = f"{ui_engine.url}/admin"

    def scenario() -> dict[str, Any]:
        seen: list[str] = []
        with open_page() as page:
            page.on("request", lambda request: seen.append(request.url))
            page.goto(url)
            page.get_by_label("API token").fill(TOKEN)
            screenshot(page, "token")
            page.get_by_role("button", name="Connect").click()
            page.get_by_role("heading", name="Sessions").wait_for()
            page.get_by_label("Title").fill("Browser session")
            page.get_by_role("button", name="Create session").click()
            page.locator(".stream-state.live").wait_for()
            page.get_by_role("textbox", name="Prompt").fill("please run the tool")
            page.get_by_role("button", name="Send").click()
            page.get_by_role("button", name="Allow once").wait_for()
            screenshot(page, "chat-permission")
            page.get_by_role("button", name="Allow once").click()
            page.locator('.run-status[data-status="completed"]').wait_for()
            screenshot(page, "chat")
            texts = page.locator(".msg.assistant .part-text").all_inner_texts()
            tool_state = page.locator(".tool").first.get_attribute("data-state")
            output = page.locator(".tool-output").first.text_content()
            storage = page.evaluate(
                "() => [localStorage.length, sessionStorage.length, document.cookie]"
            )
            page.goto(url.replace("/admin", "/admin/#/sessions"))
            page.get_by_label("API token").wait_for()  # a reload forgets the token
            return {
                "texts": texts,
                "tool_state": tool_state,
                "output": output,
                "storage": storage,
                "urls": seen,
            }

    result = await run_in_browser(scenario)
    assert result["texts"] == ["Let me run it.", "The tool said from-the-tool and all is done."]
    assert result["tool_state"] == "completed"
    assert "from-the-tool" in result["output"]
    assert result["storage"] == [0, 0, ""]
    assert all(TOKEN not in u for u in result["urls"])
