"""Each goal keeps its newest events; a projection cursor older than that is 410."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

import svc
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import create_workflows, publish, run_settled, start_goal, step_reply


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings], fake_model: Any) -> svc.Settings:
    return make_settings(
        default_provider="openai",
        goal_event_retention=3,
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )


async def test_old_cursors_are_not_retained(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    await publish(client, linear_spec())
    started = await start_goal(client)
    goal_id = started["goal"]["goal_id"]
    await run_settled(engine, started["root_run_id"])
    for reason in ("one", "two"):
        await client.post(f"/goals/{goal_id}/pause", json={"reason": reason})
        await client.post(f"/goals/{goal_id}/resume")
    events = (await client.get(f"/goals/{goal_id}/events")).json()["events"]
    assert [e["event"]["event_type"] for e in events] == [
        "stateful_runtime.goal.resumed",
        "stateful_runtime.goal.paused",
        "stateful_runtime.goal.resumed",
    ]
    oldest = events[0]["cursor"]
    gone = await client.get(f"/goals/{goal_id}/projection", params={"cursor": oldest - 1})
    assert gone.status_code == 410
    assert gone.json()["code"] == "projection_cursor_not_retained"
    assert gone.json()["retained_from_cursor"] == oldest
    kept = (await client.get(f"/goals/{goal_id}/projection", params={"cursor": oldest})).json()
    assert kept["mode"] == "replay" and kept["retained_from_cursor"] == oldest
    assert kept["goal"]["status"] == "active"
    live = (await client.get(f"/goals/{goal_id}/projection")).json()
    assert live["retained_from_cursor"] == oldest and live["timeline"]["count"] == 3
