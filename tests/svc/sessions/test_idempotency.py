"""``Idempotency-Key`` on ``prompt_async``: a repeated request replays the run it started."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import trio

import svc
from tests.fakes.turns import Turn
from tests.helpers import text_prompt, wait_for_event


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def test_replay_while_active_and_after_the_run_returns_the_same_run(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.enqueue(Turn.reply("held until released", gate=gate, gate_after=1))
    sid = (await client.post("/session", json={})).json()["id"]

    async def prompt() -> httpx.Response:
        return await client.post(
            f"/session/{sid}/prompt_async",
            params={"return": "run"},
            headers={"Idempotency-Key": "key-1"},
            json=text_prompt("once only"),
        )

    first = await prompt()
    assert first.status_code == 202, first.text
    run_id = first.json()["runID"]
    assert "idempotentReplay" not in first.json()

    # The run is still active (the model holds its answer): a replay, not a conflict.
    while_active = await prompt()
    assert while_active.status_code == 202, while_active.text
    assert while_active.json()["runID"] == run_id
    assert while_active.json()["idempotentReplay"] is True
    assert while_active.headers["x-svc-run-id"] == run_id

    gate.set()
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    after = await prompt()
    assert after.status_code == 202, after.text
    assert after.json()["runID"] == run_id
    assert after.json()["idempotentReplay"] is True
    assert len(fake_model.requests) == 1  # no second run reached the model

    different = await client.post(
        f"/session/{sid}/prompt_async",
        params={"return": "run"},
        headers={"Idempotency-Key": "key-1"},
        json=text_prompt("another prompt"),
    )
    assert different.status_code == 409
    assert different.json()["code"] == "SESSION_RUN_CONFLICT"
