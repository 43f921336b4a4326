"""Every budget kind, exhausted by a real run: the instance's run is cancelled through its scope."""

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

COST_RATE = "10"  # USD per 1,000 tokens: 100 tokens cost $1


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings], fake_model: Any) -> svc.Settings:
    return make_settings(
        env={"SVC_TOKEN_COST_PER_1K_USD": COST_RATE},
        default_provider="openai",
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )


@pytest.fixture
def team(
    write_policy: Callable[..., Path], write_template: Callable[..., Path], workspace: Path
) -> None:
    write_policy(OPEN_POLICY)
    write_template(WORKER)
    (workspace / "a.txt").write_text("a")
    (workspace / "b.txt").write_text("b")


async def spawn(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/agent-team/spawn", json={"role": "worker", **body})
    assert response.status_code == 200 and response.json()["ok"] is True, response.text
    return response.json()


async def end_of(engine: svc.Engine, instance_id: str) -> Event:
    with (
        trio.fail_after(30),
        EventStream(engine.events, EventFilter(topic="agent-team"), after_seq=0) as stream,
    ):
        while True:
            for event in await stream.receive():
                if (
                    event.type
                    in (
                        "agent_team.instance.completed",
                        "agent_team.instance.failed",
                        "agent_team.instance.cancelled",
                    )
                    and event.properties.get("instanceID") == instance_id
                ):
                    return event


async def exhausted_run(engine: svc.Engine, spawned: dict[str, Any], limit: str) -> dict[str, Any]:
    """Check the exhaustion, the run's and the instance's end; return the exhaustion event's
    properties."""
    exhausted = await wait_for_event(
        engine, "agent_team.budget.exhausted", session_id=spawned["sessionID"]
    )
    assert exhausted.properties["exhaustedBy"] == limit
    assert exhausted.properties["instanceID"] == spawned["instanceID"]
    finished = await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
    assert finished.properties["status"] in ("cancelled", "timeout")
    end = await end_of(engine, spawned["instanceID"])
    assert end.type == "agent_team.instance.cancelled"
    assert end.properties["reason"] == "budget exhausted" and end.properties["exhaustedBy"] == limit
    return dict(exhausted.properties)


async def test_token_budget(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, team: None, workspace: Path
) -> None:
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall("write", {"path": "out.txt", "content": "x"}, id="w1"),
            usage=FakeUsage(90, 30),
        ),
        Turn.reply("never asked"),
    )
    spawned = await spawn(client, prompt="write it", budget_override={"max_tokens": 100})
    exhausted = await exhausted_run(engine, spawned, "max_tokens")
    assert exhausted["tokensUsed"] == 120
    finished = await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
    assert finished.properties["error"]["code"] == "BUDGET_EXHAUSTED"
    # The call that came with the tokens over the limit never ran.
    assert not (workspace / "out.txt").exists()
    assert len(fake_model.requests) == 1


async def test_step_budget(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, team: None
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("read", {"path": "a.txt"}, id="r1")), Turn.reply("never asked")
    )
    spawned = await spawn(client, prompt="read", budget_override={"max_steps": 1})
    exhausted = await exhausted_run(engine, spawned, "max_steps")
    assert exhausted["stepsUsed"] == 2
    assert len(fake_model.requests) == 1


async def test_tool_call_budget(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, team: None
) -> None:
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall("read", {"path": "a.txt"}, id="r1"),
            FakeToolCall("read", {"path": "b.txt"}, id="r2"),
        ),
        Turn.reply("never asked"),
    )
    spawned = await spawn(client, prompt="read both", budget_override={"max_tool_calls": 1})
    exhausted = await exhausted_run(engine, spawned, "max_tool_calls")
    assert exhausted["toolCallsUsed"] == 2
    parts = (await client.get(f"/session/{spawned['sessionID']}/message")).json()[-1]["parts"]
    reads = [p for p in parts if p.get("type") == "tool"]
    assert reads[0]["state"] == "completed" and "a" in reads[0]["result"]


async def test_duration_budget(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, team: None
) -> None:
    fake_model.enqueue(Turn.reply("too late", gate=trio.Event()))
    spawned = await spawn(client, prompt="think forever", budget_override={"max_duration_ms": 300})
    exhausted = await exhausted_run(engine, spawned, "max_duration_ms")
    assert exhausted["elapsedMs"] >= 300
    finished = await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
    assert finished.properties["status"] == "timeout"


async def test_duration_budget_of_an_idle_instance(
    client: httpx.AsyncClient, engine: svc.Engine, team: None
) -> None:
    spawned = await spawn(client, budget_override={"max_duration_ms": 200})
    exhausted = await wait_for_event(
        engine, "agent_team.budget.exhausted", session_id=spawned["sessionID"]
    )
    assert exhausted.properties["exhaustedBy"] == "max_duration_ms"
    end = await end_of(engine, spawned["instanceID"])
    assert (
        end.type == "agent_team.instance.cancelled"
        and end.properties["exhaustedBy"] == "max_duration_ms"
    )


async def test_cost_budget(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, team: None
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("read", {"path": "a.txt"}, id="r1"), usage=FakeUsage(40, 20)),
        Turn.reply("never asked"),
    )
    spawned = await spawn(client, prompt="spend", budget_override={"max_cost_usd": 0.5})
    exhausted = await exhausted_run(engine, spawned, "max_cost_usd")
    assert exhausted["costUsedUsd"] == pytest.approx(0.6)
    assert exhausted["tokensUsed"] == 60


async def test_policy_cost_rate_above_the_engine_rate_is_charged(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy({**OPEN_POLICY, "cost_per_1k_tokens_usd": 100})
    write_template(WORKER)
    fake_model.enqueue(
        Turn.calls(FakeToolCall("glob", {"pattern": "*"}, id="g1"), usage=FakeUsage(5, 5)),
        Turn.reply("done", usage=FakeUsage(5, 5)),
    )
    # 10 tokens at the engine's $10/1k is $0.10, at the policy's $100/1k it is $1.
    spawned = await spawn(client, prompt="go", budget_override={"max_cost_usd": 0.9})
    exhausted = await wait_for_event(
        engine, "agent_team.budget.exhausted", session_id=spawned["sessionID"]
    )
    assert exhausted.properties["exhaustedBy"] == "max_cost_usd"
    assert exhausted.properties["costUsedUsd"] == pytest.approx(1.0)


async def test_mission_budget_exhaustion_cancels_every_instance_of_the_mission(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    write_policy({**OPEN_POLICY, "mission_total_budget": {"max_tokens": 100}})
    write_template(WORKER)
    (workspace / "a.txt").write_text("a")
    idle = await spawn(client, missionID="m-x")
    bystander = await spawn(client, missionID="m-y")
    fake_model.enqueue(
        Turn.calls(FakeToolCall("read", {"path": "a.txt"}, id="r1"), usage=FakeUsage(100, 50)),
        Turn.reply("never asked"),
    )
    busy = await spawn(client, missionID="m-x", prompt="spend it all")

    exhausted = await wait_for_event(engine, "agent_team.mission.budget.exhausted")
    assert exhausted.properties["missionID"] == "m-x"
    assert exhausted.properties["exhaustedBy"] == "mission_max_tokens"
    assert exhausted.properties["tokensUsed"] == 150
    assert exhausted.properties["sessionID"] is None and exhausted.properties["instanceID"] is None
    for spawned in (idle, busy):
        end = await end_of(engine, spawned["instanceID"])
        assert end.type == "agent_team.instance.cancelled"
        assert end.properties["reason"] == "mission budget exhausted"
        assert end.properties["exhaustedBy"] == "mission_max_tokens"
    finished = await wait_for_event(engine, "session.run.finished", run_id=busy["runID"])
    assert finished.properties["error"]["code"] == "BUDGET_EXHAUSTED"
    listed = (await client.get(f"/agent-team/instance/{bystander['instanceID']}")).json()[
        "instance"
    ]
    assert listed["status"] == "running"

    refused = await client.post("/agent-team/spawn", json={"role": "worker", "missionID": "m-x"})
    assert refused.status_code == 403 and refused.json()["code"] == "spawn_mission_budget_exceeded"
    assert "max_tokens" in refused.json()["error"]
    rollup = next(
        m
        for m in (await client.get("/agent-team/missions")).json()["missions"]
        if m["missionID"] == "m-x"
    )
    assert rollup["cancelledCount"] == 2 and rollup["exhaustedBy"] == "mission_max_tokens"
    assert rollup["budget"] == {"max_tokens": 100} and rollup["tokenUsedTotal"] == 150


async def test_a_child_is_capped_by_what_its_parent_has_left(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(
        {
            "enabled": True,
            "child_budget_percent_of_parent_remaining": 50,
            "spawn_edges": {"worker": {"behavior": "allow", "can_spawn": ["tester"]}},
            "role_defaults": {"tester": {"max_tokens": 5000, "max_steps": 4}},
        }
    )
    write_template(WORKER)
    write_template(
        {"templateID": "tester-basic", "role": "tester", "default_budget": {"max_tool_calls": 9}}
    )
    fake_model.enqueue(Turn.reply("warming up", usage=FakeUsage(300, 100)))
    parent = await spawn(
        client, prompt="warm up", budget_override={"max_tokens": 1000, "max_tool_calls": 10}
    )
    await wait_for_event(engine, "session.run.finished", run_id=parent["runID"])
    child = await client.post(
        "/agent-team/spawn",
        json={
            "role": "tester",
            "parentInstanceID": parent["instanceID"],
            "budget_override": {"max_steps": 3},
        },
    )
    assert child.json()["ok"] is True, child.text
    budget = (await client.get(f"/agent-team/instance/{child.json()['instanceID']}")).json()[
        "instance"
    ]["budget"]
    # tokens: role default 5000 capped at 50% of the parent's 600 left;
    # steps: override 3 (parent unlimited);
    # tool calls: template 9 capped at 50% of the parent's 10.
    assert budget == {"max_tokens": 300, "max_steps": 3, "max_tool_calls": 5}


async def test_a_parent_that_ends_during_the_spawn_caps_with_its_final_usage(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(
        {
            "enabled": True,
            "child_budget_percent_of_parent_remaining": 50,
            "spawn_edges": {"worker": {"behavior": "allow", "can_spawn": ["tester"]}},
        }
    )
    write_template(WORKER)
    hold = trio.Event()
    fake_model.enqueue(Turn.reply("finished", usage=FakeUsage(300, 100), gate=hold))
    parent = await spawn(client, prompt="work", budget_override={"max_tokens": 1000})
    await wait_for_event(engine, "session.run.started", run_id=parent["runID"])
    seq = engine.events.last_seq
    child: dict[str, Any] = {}

    async def spawn_child() -> None:
        response = await client.post(
            "/agent-team/spawn", json={"role": "tester", "parentInstanceID": parent["instanceID"]}
        )
        child.update(response.json())

    # Spawns are serialised; holding their lock parks the child's spawn after it
    # has read its parent's record (still running, nothing charged yet), so the
    # parent can end, with its final usage recorded, before the budget is resolved.
    async with trio.open_nursery() as nursery, engine.teams.spawner.admission:
        nursery.start_soon(spawn_child)
        await wait_for_event(
            engine,
            "agent_team.spawn.requested",
            after_seq=seq,
            where=lambda e: e.properties["requestedRole"] == "tester",
        )
        hold.set()
        assert (await end_of(engine, parent["instanceID"])).type == "agent_team.instance.completed"
    assert child["ok"] is True, child
    budget = (await client.get(f"/agent-team/instance/{child['instanceID']}")).json()["instance"][
        "budget"
    ]
    # The parent used 400 of its 1,000 tokens: the child gets 50% of the 600 left
    # (not of a stale 1,000).
    assert budget == {"max_tokens": 300}
