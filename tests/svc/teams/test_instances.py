"""Instances driven by the scripted model server: their runs, their ends, and cancellation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

import svc
from svc.events import Event, EventFilter, EventStream
from tests.fakes.turns import FakeToolCall, FakeUsage, Turn
from tests.helpers import wait_for_event
from tests.svc.teams.conftest import OPEN_POLICY, WORKER


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


@pytest.fixture
def team(write_policy: Callable[..., Path], write_template: Callable[..., Path]) -> None:
    write_policy(OPEN_POLICY)
    write_template({**WORKER, "system_prompt": "You are a careful worker."})


async def spawn(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/agent-team/spawn", json={"role": "worker", **body})
    assert response.status_code == 200, response.text
    assert response.json()["ok"] is True, response.text
    return response.json()


async def ended(engine: svc.Engine, instance_id: str) -> Event:
    """The instance's end event (completed, failed or cancelled)."""
    with (
        trio.fail_after(30),
        EventStream(engine.events, EventFilter(topic="agent-team"), after_seq=0) as stream,
    ):
        while True:
            for event in await stream.receive():
                if (
                    event.type.startswith("agent_team.instance.")
                    and event.type != "agent_team.instance.started"
                    and event.properties.get("instanceID") == instance_id
                ):
                    return event


async def instance_of(client: httpx.AsyncClient, instance_id: str) -> dict[str, Any]:
    return (await client.get(f"/agent-team/instance/{instance_id}")).json()["instance"]


async def test_an_instance_runs_its_task_and_completes(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    team: None,
    workspace: Path,
) -> None:
    (workspace / "notes.txt").write_text("alpha")
    fake_model.enqueue(
        Turn.calls(FakeToolCall("read", {"path": "notes.txt"}, id="c1"), usage=FakeUsage(30, 10)),
        Turn.reply("The notes say alpha.", usage=FakeUsage(50, 6)),
    )
    body = await spawn(client, prompt="Summarize notes.txt", missionID="m-run")
    assert body["runID"] is not None
    end = await ended(engine, body["instanceID"])
    assert end.type == "agent_team.instance.completed"
    assert end.properties["status"] == "completed" and end.properties["role"] == "worker"

    instance = await instance_of(client, body["instanceID"])
    assert instance["status"] == "completed" and instance["runID"] == body["runID"]
    usage = instance["metadata"]["budgetUsage"]
    assert (usage["tokensUsed"], usage["stepsUsed"], usage["toolCallsUsed"]) == (96, 2, 1)

    first = fake_model.requests[0].body
    assert "You are a careful worker." in first["messages"][0]["content"]
    assert {t["function"]["name"] for t in first["tools"]} == {"read", "glob", "write", "bash"}
    reply = (await client.get(f"/session/{body['sessionID']}/message")).json()[-1]
    assert reply["parts"][-1]["text"] == "The notes say alpha."

    usage_events = [
        e for e in await engine.events.replay(limit=10_000) if e.type == "agent_team.budget.usage"
    ]
    assert usage_events and usage_events[-1].properties["tokensUsed"] == 96
    missions = (await client.get("/agent-team/missions")).json()["missions"]
    assert missions[0]["missionID"] == "m-run" and missions[0]["completedCount"] == 1
    assert (
        missions[0]["tokenUsedTotal"],
        missions[0]["stepsUsedTotal"],
        missions[0]["toolCallsUsedTotal"],
    ) == (96, 2, 1)


async def test_a_failed_run_fails_the_instance(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    team: None,
) -> None:
    fake_model.enqueue(Turn.failure(401, "bad key"))
    body = await spawn(client, prompt="go")
    end = await ended(engine, body["instanceID"])
    assert end.type == "agent_team.instance.failed"
    instance = await instance_of(client, body["instanceID"])
    assert instance["status"] == "failed"
    assert instance["metadata"]["reason"].startswith("AUTHENTICATION_ERROR")
    # An ended instance takes no more work.
    again = await client.post(
        f"/agent-team/instance/{body['instanceID']}/prompt", json={"text": "more"}
    )
    assert again.status_code == 409 and again.json()["code"] == "INSTANCE_NOT_RUNNING"


async def test_cancelling_an_instance_cancels_its_run(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    team: None,
) -> None:
    hold = trio.Event()
    fake_model.enqueue(Turn.reply("never finished", gate=hold))
    body = await spawn(client, prompt="work slowly")
    await wait_for_event(engine, "session.run.started", run_id=body["runID"])
    response = await client.post(
        f"/agent-team/instance/{body['instanceID']}/cancel", json={"reason": "enough"}
    )
    assert response.json() == {
        "ok": True,
        "instanceID": body["instanceID"],
        "sessionID": body["sessionID"],
        "status": "cancelled",
    }
    run_end = await wait_for_event(engine, "session.run.finished", run_id=body["runID"])
    assert run_end.properties["status"] == "cancelled"
    end = await ended(engine, body["instanceID"])
    assert end.type == "agent_team.instance.cancelled" and end.properties["reason"] == "enough"
    instance = await instance_of(client, body["instanceID"])
    assert instance["status"] == "cancelled" and instance["metadata"]["reason"] == "enough"
    # Cancelling again changes nothing; an unknown instance is a 404.
    again = await client.post(f"/agent-team/instance/{body['instanceID']}/cancel", json={})
    assert again.json()["status"] == "cancelled"
    missing = await client.post("/agent-team/instance/ins_nope/cancel", json={})
    assert missing.status_code == 404 and missing.json()["code"] == "INSTANCE_NOT_FOUND"


async def test_cancelling_a_mission_cancels_every_running_instance(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    team: None,
) -> None:
    hold = trio.Event()
    fake_model.enqueue(Turn.reply("slow", gate=hold))
    busy = await spawn(client, prompt="work", missionID="m-c")
    idle = await spawn(client, missionID="m-c")
    other = await spawn(client, missionID="m-other")
    await wait_for_event(engine, "session.run.started", run_id=busy["runID"])
    response = await client.post("/agent-team/mission/m-c/cancel", json={"reason": "scrapped"})
    assert response.json() == {"ok": True, "missionID": "m-c", "cancelledInstances": 2}
    for spawned in (busy, idle):
        assert (await instance_of(client, spawned["instanceID"]))["status"] == "cancelled"
    assert (await instance_of(client, other["instanceID"]))["status"] == "running"
    run_end = await wait_for_event(engine, "session.run.finished", run_id=busy["runID"])
    assert run_end.properties["status"] == "cancelled"
    # Nothing left to cancel; the mission still takes new instances.
    again = await client.post("/agent-team/mission/m-c/cancel", json={})
    assert again.json()["cancelledInstances"] == 0
    fresh = await spawn(client, missionID="m-c")
    assert (await instance_of(client, fresh["instanceID"]))["status"] == "running"
    rollup = next(
        m
        for m in (await client.get("/agent-team/missions")).json()["missions"]
        if m["missionID"] == "m-c"
    )
    assert (rollup["instanceCount"], rollup["cancelledCount"], rollup["runningCount"]) == (3, 2, 1)


async def test_an_idle_instance_is_prompted_through_its_session_under_its_budget(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    team: None,
) -> None:
    body = await spawn(client, budget_override={"max_steps": 1})
    assert body["runID"] is None
    fake_model.enqueue(
        Turn.calls(FakeToolCall("glob", {"pattern": "*"}, id="g1")), Turn.reply("done")
    )
    # A plain session prompt on the instance's session runs as the instance.
    response = await client.post(
        f"/session/{body['sessionID']}/prompt_async",
        params={"return": "run"},
        json={"parts": [{"type": "text", "text": "look around"}]},
    )
    assert response.status_code == 202, response.text
    run_id = response.json()["runID"]
    exhausted = await wait_for_event(
        engine, "agent_team.budget.exhausted", session_id=body["sessionID"]
    )
    assert exhausted.properties["exhaustedBy"] == "max_steps"
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "cancelled"
    assert finished.properties["error"]["code"] == "BUDGET_EXHAUSTED"
    assert len(fake_model.requests) == 1
    # The instance records its end once its run has recorded its own.
    assert (await ended(engine, body["instanceID"])).type == "agent_team.instance.cancelled"
    instance = await instance_of(client, body["instanceID"])
    assert instance["runID"] == run_id and instance["status"] == "cancelled"
    assert instance["metadata"]["exhaustedBy"] == "max_steps"


async def test_prompting_an_instance_over_its_route(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    team: None,
) -> None:
    body = await spawn(client)
    fake_model.enqueue(Turn.reply("hello"))
    response = await client.post(
        f"/agent-team/instance/{body['instanceID']}/prompt", json={"text": "hi"}
    )
    assert response.status_code == 202, response.text
    assert response.json()["runID"]
    end = await ended(engine, body["instanceID"])
    assert end.type == "agent_team.instance.completed"
    missing = await client.post(f"/agent-team/instance/{body['instanceID']}/prompt", json={})
    assert missing.status_code == 400 and missing.json()["field"] == "parts"


async def test_the_template_model_applies_to_the_instance_session(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(OPEN_POLICY)
    write_template({**WORKER, "default_model": {"provider_id": "openai", "model_id": "fake-large"}})
    fake_model.enqueue(Turn.reply("ok"))
    body = await spawn(client, prompt="hi")
    assert (await ended(engine, body["instanceID"])).type == "agent_team.instance.completed"
    assert fake_model.requests[0].body["model"] == "fake-large"
    session = (await client.get(f"/session/{body['sessionID']}")).json()
    assert session["model"] == {"providerID": "openai", "modelID": "fake-large"}


async def test_a_crashed_instance_restarts_alone_from_its_record(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    team: None,
) -> None:
    from svc.teams.context import instance_actor_name

    crashing = await spawn(client, missionID="m-crash", budget_override={"max_tokens": 50})
    sibling = await spawn(client, missionID="m-crash")
    ref = engine.actors.lookup(instance_actor_name("m-crash", crashing["instanceID"]))
    assert ref is not None
    seq = engine.events.last_seq
    ref.tell(
        "not a message an instance understands"
    )  # raising from a told message crashes the actor
    exit = await ref.wait_stopped()
    assert exit.reason == "crashed"
    restored = await wait_for_event(
        engine,
        "agent_team.instance.started",
        after_seq=seq,
        where=lambda e: e.properties["instanceID"] == crashing["instanceID"],
    )
    assert restored.properties["restored"] is True and restored.properties["budgetLimit"] == {
        "max_tokens": 50
    }
    fresh = engine.actors.lookup(instance_actor_name("m-crash", crashing["instanceID"]))
    assert fresh is not None and fresh != ref
    # Its sibling never noticed; the restarted instance is supervised like before.
    assert (await instance_of(client, sibling["instanceID"]))["status"] == "running"
    cancelled = await client.post(f"/agent-team/instance/{crashing['instanceID']}/cancel", json={})
    assert cancelled.json()["status"] == "cancelled"
    assert (await instance_of(client, sibling["instanceID"]))["status"] == "running"
