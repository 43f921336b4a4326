"""Agent teams through the whole engine: the mission routes' bridge, and the session event
stream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

import svc
from svc.events import parse_frames
from tests.helpers import wait_for_event
from tests.svc.teams.conftest import WORKER


@pytest.fixture
async def engine(settings: svc.Settings) -> AsyncIterator[svc.Engine]:
    """Every component: the mission routes belong to the automations domain."""
    async with svc.open_engine(settings, serve_http=True) as eng:
        yield eng


async def test_mission_events_spawn_and_cancel_instances_over_http(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(
        {
            "enabled": True,
            "require_justification": True,
            "spawn_edges": {
                "orchestrator": {"behavior": "allow", "can_spawn": ["worker", "tester"]}
            },
        }
    )
    write_template(WORKER)
    created = await client.post(
        "/mission",
        json={
            "title": "Ship it",
            "goal": "release 1.0",
            "work_items": [
                {"work_item_id": "w-1", "title": "Write code", "assigned_agent": "worker"},
                {"work_item_id": "w-2", "title": "Test it", "assigned_agent": "Tester"},
                {"work_item_id": "w-3", "title": "Write docs", "assigned_agent": "poet"},
                {"work_item_id": "w-4", "title": "Celebrate"},
            ],
        },
    )
    assert created.status_code == 200, created.text
    mission_id = created.json()["mission"]["mission_id"]

    started = await client.post(
        f"/mission/{mission_id}/event",
        json={"event": {"type": "mission_started", "mission_id": mission_id}},
    )
    assert started.status_code == 200, started.text
    spawns = started.json()["orchestratorSpawns"]
    assert [(row["workItemID"], row["ok"]) for row in spawns] == [
        ("w-1", True),
        ("w-2", True),
        ("w-3", False),
    ]
    assert spawns[2]["code"] == "UNSUPPORTED_ASSIGNED_AGENT"
    assert all(
        row["status"] == "running" and row["instanceID"].startswith("ins_") for row in spawns[:2]
    )
    assert started.json()["orchestratorCancellations"] == {
        "triggered": False,
        "cancelledInstances": 0,
    }

    listed = (await client.get("/agent-team/instances", params={"missionID": mission_id})).json()
    assert listed["count"] == 2
    assert {i["instanceID"] for i in listed["instances"]} == {
        row["instanceID"] for row in spawns[:2]
    }
    assert {i["metadata"]["source"] for i in listed["instances"]} == {"orchestrator_runtime"}
    rollup = next(
        m
        for m in (await client.get("/agent-team/missions")).json()["missions"]
        if m["missionID"] == mission_id
    )
    assert (rollup["instanceCount"], rollup["runningCount"]) == (2, 2)

    seq = engine.events.last_seq
    canceled = await client.post(
        f"/mission/{mission_id}/event",
        json={
            "event": {"type": "mission_canceled", "mission_id": mission_id, "reason": "descoped"}
        },
    )
    assert canceled.status_code == 200, canceled.text
    assert canceled.json()["orchestratorCancellations"] == {
        "triggered": True,
        "reason": "descoped",
        "cancelledInstances": 2,
    }
    for row in spawns[:2]:
        end = await wait_for_event(
            engine,
            "agent_team.instance.cancelled",
            after_seq=seq,
            where=lambda e, iid=row["instanceID"]: e.properties["instanceID"] == iid,
        )
        assert end.properties["reason"] == "descoped" and end.properties["missionID"] == mission_id
    statuses = (await client.get("/agent-team/instances", params={"missionID": mission_id})).json()[
        "instances"
    ]
    assert {i["status"] for i in statuses} == {"cancelled"}


async def session_stream_until(
    client: httpx.AsyncClient, session_id: str, last: str
) -> list[dict[str, Any]]:
    """The session's event stream from the start of the log, up to the first event of type
    ``last``."""
    events: list[dict[str, Any]] = []
    buffer = ""
    with trio.fail_after(30):
        async with client.stream(
            "GET", "/event", params={"sessionID": session_id}, headers={"Last-Event-ID": "0"}
        ) as response:
            assert response.status_code == 200
            with trio.CancelScope() as scope:
                async for chunk in response.aiter_text():
                    buffer += chunk
                    while "\n\n" in buffer:
                        block, buffer = buffer.split("\n\n", 1)
                        for frame in parse_frames(block + "\n\n"):
                            if "data" in frame:
                                events.append(json.loads(frame["data"]))
                    if any(e.get("type") == last for e in events):
                        scope.cancel()
    return events


async def test_instance_events_stream_on_the_session_event_stream(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy({"enabled": True})
    write_template(WORKER)
    spawned = (
        await client.post("/agent-team/spawn", json={"role": "worker", "missionID": "m-sse"})
    ).json()
    assert spawned["ok"] is True
    await client.post(
        f"/agent-team/instance/{spawned['instanceID']}/cancel", json={"reason": "done here"}
    )
    events = await session_stream_until(
        client, spawned["sessionID"], "agent_team.instance.cancelled"
    )
    team = [e for e in events if e["type"].startswith("agent_team.")]
    assert [e["type"] for e in team] == [
        "agent_team.spawn.approved",
        "agent_team.instance.started",
        "agent_team.budget.usage",
        "agent_team.instance.cancelled",
    ]
    for event in team:
        assert event["properties"]["instanceID"] == spawned["instanceID"]
        assert event["properties"]["missionID"] == "m-sse"
    assert team[-1]["properties"]["reason"] == "done here"
