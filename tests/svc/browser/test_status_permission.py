"""``browser_status`` is allowed by default: a model may ask whether a browser is runnable
without a permission prompt (it opens no page and sends nothing anywhere)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import svc
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import run_events, text_prompt, wait_for_event


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def test_a_run_calls_browser_status_without_asking(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("browser_status", {}, id="b1")), Turn.reply("checked")
    )
    sid = (await client.post("/session", json={})).json()["id"]
    response = await client.post(
        f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt("browser?")
    )
    assert response.status_code == 202, response.text
    run_id = response.json()["runID"]
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    types = [event.type for event in await run_events(engine, run_id)]
    assert "permission.asked" not in types
    tool = next(m for m in fake_model.requests[-1].body["messages"] if m["role"] == "tool")
    status = json.loads(tool["content"])
    assert status["runnable"] is False and status["enabled"] is False
