"""Missions: the reducer (pure), the routes, and the bridge to agent teams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import trio
import yaml

import svc
from svc.automations.work_missions import WorkItem, WorkMission, WorkMissionEvent, reduce
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event


def mission(*statuses: str, status: str = "running") -> WorkMission:
    items = tuple(WorkItem(f"w-{i + 1}", f"item {i + 1}", status=s) for i, s in enumerate(statuses))
    return WorkMission(
        "m-1", status, {"mission_id": "m-1", "title": "t", "goal": "g"}, items, 1, 0, 0
    )


def event(kind: str, **fields: Any) -> WorkMissionEvent:
    return WorkMissionEvent(kind, "m-1", fields)


def test_a_work_item_goes_through_review_and_test_to_done() -> None:
    state = mission("todo", "done")
    state, commands = reduce(state, event("run_started", work_item_id="w-1", run_id="r-1"))
    assert state.item("w-1").status == "in_progress" and state.item("w-1").run_id == "r-1"
    assert state.revision == 2 and commands == []
    state, commands = reduce(
        state, event("run_finished", work_item_id="w-1", run_id="r-1", status="completed")
    )
    assert state.item("w-1").status == "review"
    assert commands == [
        {
            "type": "request_approval",
            "mission_id": "m-1",
            "work_item_id": "w-1",
            "kind": "review",
            "summary": "Review required for `item 1` output",
        }
    ]
    state, commands = reduce(
        state, event("approval_granted", work_item_id="w-1", approval_id="a-1")
    )
    assert state.item("w-1").status == "test" and commands[0]["kind"] == "test"
    state, commands = reduce(
        state, event("approval_granted", work_item_id="w-1", approval_id="a-2")
    )
    assert state.item("w-1").status == "done" and state.status == "succeeded"
    assert [c["event_type"] for c in commands] == [
        "mission.work_item.completed",
        "mission.completed",
    ]
    assert state.revision == 5


def test_failures_and_denials_send_items_to_rework() -> None:
    state, commands = reduce(
        mission("in_progress"),
        event("run_finished", work_item_id="w-1", run_id="r", status="error"),
    )
    assert state.item("w-1").status == "rework"
    assert commands[0]["event_type"] == "mission.work_item.rework_requested"
    state, commands = reduce(
        mission("test"),
        event("approval_denied", work_item_id="w-1", approval_id="a", reason="flaky"),
    )
    assert state.item("w-1").status == "rework" and commands[0]["properties"]["gate"] == "test"


def test_events_that_change_nothing_keep_the_revision() -> None:
    state = mission("todo")
    for unchanged in (
        event("tool_observed", run_id="r", tool="read", phase="start"),
        event("timer_fired", timer_id="t"),
        event("approval_granted", work_item_id="w-1", approval_id="a"),
        event("run_started", work_item_id="w-9", run_id="r"),
        event("mission_started"),
        WorkMissionEvent("mission_started", "another-mission"),
    ):
        assert reduce(state, unchanged) == (state, [])


def test_pause_resume_cancel() -> None:
    state, _ = reduce(mission(), event("mission_paused", reason="lunch"))
    assert state.status == "paused"
    state, _ = reduce(state, event("mission_resumed"))
    assert state.status == "running"
    state, commands = reduce(state, event("mission_canceled", reason="scope cut"))
    assert state.status == "canceled" and commands[0]["event_type"] == "mission.canceled"


async def test_mission_routes_and_the_bridge(client: httpx.AsyncClient, engine: svc.Engine) -> None:
    created = await client.post(
        "/mission",
        json={
            "title": "Ship it",
            "goal": "release 1.0",
            "work_items": [
                {"work_item_id": "w-1", "title": "Write code", "assigned_agent": "worker"},
                {"title": "Write docs", "assigned_agent": "poet"},
                {"title": "Celebrate"},
            ],
        },
    )
    assert created.status_code == 200, created.text
    state = created.json()["mission"]
    assert state["status"] == "draft" and state["revision"] == 1
    assert [w["work_item_id"] for w in state["work_items"]] == ["w-1", "w-2", "w-3"]
    mission_id = state["mission_id"]
    assert (await client.get("/mission")).json()["count"] == 1
    assert (await client.get(f"/mission/{mission_id}")).json()["mission"]["spec"][
        "goal"
    ] == "release 1.0"

    started = (
        await client.post(
            f"/mission/{mission_id}/event",
            json={"event": {"type": "mission_started", "mission_id": mission_id}},
        )
    ).json()
    assert started["mission"]["status"] == "running" and started["commands"] == []
    spawns = started["orchestratorSpawns"]
    assert [row["workItemID"] for row in spawns] == ["w-1", "w-2"]
    poet = spawns[1]
    assert poet["ok"] is False and poet["code"] == "UNSUPPORTED_ASSIGNED_AGENT"
    assert started["orchestratorCancellations"] == {"triggered": False, "cancelledInstances": 0}
    updated = await wait_for_event(
        engine, "mission.updated", where=lambda e: e.properties["missionID"] == mission_id
    )
    assert updated.properties["status"] == "running" and updated.properties["revision"] == 2

    canceled = (
        await client.post(
            f"/mission/{mission_id}/event",
            json={
                "event": {
                    "type": "mission_canceled",
                    "mission_id": mission_id,
                    "reason": "descoped",
                }
            },
        )
    ).json()
    assert canceled["mission"]["status"] == "canceled" and canceled["orchestratorSpawns"] == []
    assert canceled["orchestratorCancellations"]["triggered"] is True
    assert canceled["orchestratorCancellations"]["reason"] == "descoped"
    assert isinstance(canceled["orchestratorCancellations"]["cancelledInstances"], int)


async def test_mission_event_errors(client: httpx.AsyncClient) -> None:
    mission_id = (await client.post("/mission", json={"title": "t", "goal": "g"})).json()[
        "mission"
    ]["mission_id"]
    mismatch = await client.post(
        f"/mission/{mission_id}/event",
        json={"event": {"type": "mission_started", "mission_id": "someone-else"}},
    )
    assert mismatch.status_code == 400 and mismatch.json()["code"] == "MISSION_EVENT_MISMATCH"
    missing = await client.post(
        "/mission/ghost/event", json={"event": {"type": "mission_started", "mission_id": "ghost"}}
    )
    assert missing.status_code == 404 and missing.json()["code"] == "MISSION_NOT_FOUND"
    unknown = await client.post(
        f"/mission/{mission_id}/event",
        json={"event": {"type": "mission_exploded", "mission_id": mission_id}},
    )
    assert unknown.status_code == 400 and unknown.json()["field"] == "event.type"
    incomplete = await client.post(
        f"/mission/{mission_id}/event",
        json={"event": {"type": "run_started", "mission_id": mission_id}},
    )
    assert incomplete.status_code == 400 and incomplete.json()["field"] == "event.work_item_id"
    assert (await client.post("/mission", json={"title": "t"})).json()["field"] == "goal"


def write_yaml(path: Path, content: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(content, sort_keys=False), encoding="utf-8")


async def test_the_bridge_spawns_and_cancels_team_instances(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    team = workspace / ".svc" / "agent-team"
    write_yaml(
        team / "spawn-policy.yaml",
        {
            "enabled": True,
            "spawn_edges": {"orchestrator": {"behavior": "allow", "can_spawn": ["worker"]}},
        },
    )
    write_yaml(
        team / "templates" / "worker-basic.yaml",
        {
            "templateID": "worker-basic",
            "role": "worker",
            "display_name": "Worker",
            "capabilities": {"tool_allowlist": ["read"], "fs_scopes": {"read": ["."], "write": []}},
        },
    )
    # The instances' model turns are held, so both are still running when the mission is canceled.
    hold = trio.Event()
    fake_model.default = lambda request: Turn.reply("working", gate=hold)
    mission_id = (
        await client.post(
            "/mission",
            json={
                "title": "Ship",
                "goal": "release",
                "work_items": [
                    {"work_item_id": "w-1", "title": "Build", "assigned_agent": "worker"},
                    {"work_item_id": "w-2", "title": "Build more", "assigned_agent": "worker"},
                    {"work_item_id": "w-3", "title": "Think"},
                ],
            },
        )
    ).json()["mission"]["mission_id"]

    started = (
        await client.post(
            f"/mission/{mission_id}/event",
            json={"event": {"type": "mission_started", "mission_id": mission_id}},
        )
    ).json()
    spawns = started["orchestratorSpawns"]
    assert [(row["workItemID"], row["ok"], row["status"]) for row in spawns] == [
        ("w-1", True, "running"),
        ("w-2", True, "running"),
    ]
    assert all(row["instanceID"] and row["sessionID"] for row in spawns)
    assert started["orchestratorCancellations"] == {"triggered": False, "cancelledInstances": 0}
    instances = (
        await client.get("/agent-team/instances", params={"missionID": mission_id})
    ).json()["instances"]
    assert sorted(i["instanceID"] for i in instances) == sorted(row["instanceID"] for row in spawns)

    paused = (
        await client.post(
            f"/mission/{mission_id}/event",
            json={"event": {"type": "mission_paused", "mission_id": mission_id, "reason": "lunch"}},
        )
    ).json()
    assert (
        paused["orchestratorSpawns"] == []
        and paused["orchestratorCancellations"]["triggered"] is False
    )

    canceled = (
        await client.post(
            f"/mission/{mission_id}/event",
            json={
                "event": {
                    "type": "mission_canceled",
                    "mission_id": mission_id,
                    "reason": "descoped",
                }
            },
        )
    ).json()
    assert canceled["orchestratorSpawns"] == []
    assert canceled["orchestratorCancellations"] == {
        "triggered": True,
        "reason": "descoped",
        "cancelledInstances": 2,
    }
    after = (await client.get("/agent-team/instances", params={"missionID": mission_id})).json()[
        "instances"
    ]
    assert {i["status"] for i in after} == {"cancelled"}
    hold.set()
