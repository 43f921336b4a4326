"""Instances, approvals, mission counters and rollups survive an engine restart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

import svc
from svc.events import EventFilter, EventStream
from svc.teams import SpawnRequest, TeamsComponent
from tests.fakes.turns import FakeUsage, Turn
from tests.helpers import wait_for_event
from tests.svc.teams.conftest import WORKER

ROLLUP_FIELDS = (
    "missionID",
    "instanceCount",
    "runningCount",
    "completedCount",
    "failedCount",
    "cancelledCount",
    "queuedCount",
    "tokenUsedTotal",
    "toolCallsUsedTotal",
    "stepsUsedTotal",
    "costUsedUsdTotal",
)


def engine_for(settings: svc.Settings) -> Any:
    return svc.open_engine(settings, components=[TeamsComponent()])


async def instance_end(engine: svc.Engine, instance_id: str, after_seq: int = 0) -> str:
    with (
        trio.fail_after(30),
        EventStream(engine.events, EventFilter(topic="agent-team"), after_seq=after_seq) as stream,
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
                    return event.type


async def test_the_team_survives_a_restart(
    model_settings: svc.Settings,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(
        {
            "enabled": True,
            "mission_total_budget": {"max_tokens": 1000},
            "spawn_edges": {"worker": {"behavior": "request_only", "can_spawn": ["tester"]}},
        }
    )
    write_template(WORKER)
    async with engine_for(model_settings) as engine:
        teams = engine.teams
        idle = (await teams.spawn(SpawnRequest(role="worker", mission_id="m-1"))).body
        fake_model.enqueue(Turn.reply("done", usage=FakeUsage(300, 20)))
        finished = (
            await teams.spawn(SpawnRequest(role="worker", mission_id="m-1", prompt="finish"))
        ).body
        assert await instance_end(engine, finished["instanceID"]) == "agent_team.instance.completed"
        queued = (
            await teams.spawn(
                SpawnRequest(
                    role="tester", parent_instance_id=idle["instanceID"], justification="later"
                )
            )
        ).body
        assert queued["code"] == "spawn_requires_approval"
        fake_model.enqueue(Turn.reply("interrupted", gate=trio.Event()))
        busy = (
            await teams.spawn(SpawnRequest(role="worker", mission_id="m-1", prompt="long task"))
        ).body
        await wait_for_event(engine, "session.run.started", run_id=busy["runID"])
        await fake_model.wait_for_requests(2)  # the busy run has charged its first step
        before = {i.id: i for i in await teams.instances()}
        rollup_before = await teams.missions()
        approvals_before = (await teams.approvals())["spawnApprovals"]

    async with engine_for(model_settings) as engine:
        teams = engine.teams
        after = {i.id: i for i in await teams.instances()}
        assert set(after) == set(before)
        assert after[finished["instanceID"]] == before[finished["instanceID"]]
        assert after[finished["instanceID"]].usage is not None
        assert after[finished["instanceID"]].usage.tokens == 320
        # The run that the shutdown interrupted ended the instance it belonged to.
        interrupted = after[busy["instanceID"]]
        assert interrupted.status == "failed" and interrupted.reason == "the engine stopped the run"
        assert (await teams.approvals())["spawnApprovals"] == approvals_before
        rollup = (await teams.missions())[0]
        assert (
            rollup["runningCount"] == 1
            and rollup["failedCount"] == 1
            and rollup["completedCount"] == 1
        )
        assert (
            rollup["queuedCount"] == 1
            and rollup["tokenUsedTotal"] == rollup_before[0]["tokenUsedTotal"]
        )
        # Every rollup field of SPEC 2.5 survives. The interrupted instance moved from running
        # to failed, and the step its run had charged was saved as the instance stopped with
        # the engine.
        moved = {
            **rollup_before[0],
            "runningCount": rollup_before[0]["runningCount"] - 1,
            "failedCount": rollup_before[0]["failedCount"] + 1,
            "stepsUsedTotal": rollup_before[0]["stepsUsedTotal"] + 1,
        }
        assert {k: rollup[k] for k in ROLLUP_FIELDS} == {k: moved[k] for k in ROLLUP_FIELDS}

        # The idle instance is supervised again: it can be cancelled, and the queued spawn approved.
        assert after[idle["instanceID"]].status == "running"
        restored = await wait_for_event(
            engine,
            "agent_team.instance.started",
            where=lambda e: (
                e.properties["instanceID"] == idle["instanceID"]
                and e.properties["restored"] is True
            ),
        )
        assert restored.properties["missionID"] == "m-1"
        seq = engine.events.last_seq
        cancelled = await teams.cancel_instance(idle["instanceID"], "after restart")
        assert cancelled.status == "cancelled"
        assert (
            await instance_end(engine, idle["instanceID"], after_seq=seq)
            == "agent_team.instance.cancelled"
        )
        approved = await teams.approve(queued["approvalID"])
        assert approved.ok and approved.body["missionID"] == "m-1"


async def test_mission_counters_keep_enforcing_after_a_restart(
    model_settings: svc.Settings,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy({"enabled": True, "mission_total_budget": {"max_tokens": 500}})
    write_template(WORKER)
    async with engine_for(model_settings) as engine:
        fake_model.enqueue(Turn.reply("big", usage=FakeUsage(400, 100)))
        spent = (
            await engine.teams.spawn(SpawnRequest(role="worker", mission_id="m-2", prompt="spend"))
        ).body
        assert await instance_end(engine, spent["instanceID"]) == "agent_team.instance.completed"
        assert (await engine.teams.spawn(SpawnRequest(role="worker", mission_id="m-2"))).body[
            "code"
        ] == "spawn_mission_budget_exceeded"

    async with engine_for(model_settings) as engine:
        refused = await engine.teams.spawn(SpawnRequest(role="worker", mission_id="m-2"))
        assert refused.body["code"] == "spawn_mission_budget_exceeded"
        assert refused.body["error"] == "mission max_tokens exhausted (500/500)"
        other = await engine.teams.spawn(SpawnRequest(role="worker", mission_id="m-3"))
        assert other.ok
