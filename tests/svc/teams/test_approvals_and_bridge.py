"""Spawn approvals (queue, approve, deny) and the mission bridge (spawn per work item, cancel)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

import svc
from svc.events import EventFilter
from tests.svc.teams.conftest import WORKER

REQUEST_ONLY = {
    "enabled": True,
    "spawn_edges": {"worker": {"behavior": "request_only", "can_spawn": ["tester"]}},
}


async def team_events(engine: svc.Engine) -> list[Any]:
    await engine.events.flush()
    return await engine.events.replay(EventFilter(topic="agent-team"), limit=10_000)


async def queue_tester(
    client: httpx.AsyncClient, parent: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    response = await client.post(
        "/agent-team/spawn",
        json={
            "role": "tester",
            "parentInstanceID": parent["instanceID"],
            "justification": "needs a test pass",
            **extra,
        },
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_request_only_edge_queues_the_spawn_for_approval(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(REQUEST_ONLY)
    write_template(WORKER)
    write_template({"templateID": "tester-basic", "role": "tester"})
    parent = (
        await client.post("/agent-team/spawn", json={"role": "worker", "missionID": "m-q"})
    ).json()
    queued = await queue_tester(client, parent, budget_override={"max_steps": 3})
    assert queued["ok"] is False and queued["code"] == "spawn_requires_approval"
    assert queued["requiresUserApproval"] is True and queued["approvalID"].startswith("spawn_")
    assert queued["error"] == "spawn for role `worker` requires user approval"

    listing = (await client.get("/agent-team/approvals")).json()
    assert listing["count"] == 1 and listing["toolApprovals"] == []
    approval = listing["spawnApprovals"][0]
    assert (
        approval["approvalID"] == queued["approvalID"]
        and approval["decisionCode"] == "spawn_requires_approval"
        and approval["status"] == "pending"
    )
    assert approval["request"] == {
        "missionID": "m-q",
        "parentInstanceID": parent["instanceID"],
        "source": "ui_action",
        "role": "tester",
        "justification": "needs a test pass",
        "budget_override": {"max_steps": 3},
    }
    rollup = (await client.get("/agent-team/missions")).json()["missions"][0]
    assert (rollup["queuedCount"], rollup["runningCount"], rollup["instanceCount"]) == (1, 1, 1)

    # Agents cannot decide; a human approves.
    forbidden = await client.post(
        f"/agent-team/approvals/spawn/{queued['approvalID']}/approve",
        json={},
        headers={"x-svc-agent-id": "agent-7"},
    )
    assert forbidden.status_code == 403
    approved = await client.post(
        f"/agent-team/approvals/spawn/{queued['approvalID']}/approve", json={"reason": "go ahead"}
    )
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert (
        body["ok"] is True
        and body["approvalID"] == queued["approvalID"]
        and body["decision"] == "approved"
    )
    assert (
        body["missionID"] == "m-q"
        and body["status"] == "running"
        and body["instanceID"].startswith("ins_")
    )
    child = (await client.get(f"/agent-team/instance/{body['instanceID']}")).json()["instance"]
    assert child["parentInstanceID"] == parent["instanceID"] and child["budget"] == {"max_steps": 3}
    assert (await client.get("/agent-team/approvals")).json()["spawnApprovals"] == []
    again = await client.post(
        f"/agent-team/approvals/spawn/{queued['approvalID']}/approve", json={}
    )
    assert again.status_code == 404 and again.json()["code"] == "APPROVAL_NOT_FOUND"

    lifecycle = [
        e
        for e in await team_events(engine)
        if e.properties.get("requestedRole") == "tester"
        or e.properties.get("instanceID") == body["instanceID"]
    ]
    assert [e.type for e in lifecycle] == [
        "agent_team.spawn.requested",
        "agent_team.spawn.denied",
        "agent_team.spawn.approved",
        "agent_team.instance.started",
    ]
    assert lifecycle[1].properties["requiresUserApproval"] is True
    assert lifecycle[1].properties["approvalID"] == queued["approvalID"]


async def test_denying_a_queued_spawn(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(REQUEST_ONLY)
    write_template(WORKER)
    parent = (await client.post("/agent-team/spawn", json={"role": "worker"})).json()
    queued = await queue_tester(client, parent)
    denied = await client.post(
        f"/agent-team/approvals/spawn/{queued['approvalID']}/deny", json={"reason": "out of scope"}
    )
    assert denied.json() == {
        "ok": True,
        "approvalID": queued["approvalID"],
        "decision": "denied",
        "reason": "out of scope",
    }
    event = [e for e in await team_events(engine) if e.type == "agent_team.spawn.denied"][-1]
    assert event.properties["decision"] == "denied" and event.properties["error"] == "out of scope"
    assert event.properties["code"] == "spawn_requires_approval"
    default = await queue_tester(client, parent)
    response = await client.post(f"/agent-team/approvals/spawn/{default['approvalID']}/deny")
    assert response.json()["reason"] == "denied by user"
    assert (
        await client.post("/agent-team/approvals/spawn/spawn_nope/deny", json={})
    ).status_code == 404
    assert (await client.get("/agent-team/instances")).json()["count"] == 1


async def test_an_approval_is_checked_again_against_the_current_policy(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(REQUEST_ONLY)
    write_template(WORKER)
    parent = (await client.post("/agent-team/spawn", json={"role": "worker"})).json()
    queued = await queue_tester(client, parent)
    write_policy(
        {"enabled": True, "spawn_edges": {"worker": {"behavior": "request_only", "can_spawn": []}}}
    )
    refused = await client.post(
        f"/agent-team/approvals/spawn/{queued['approvalID']}/approve", json={}
    )
    assert refused.status_code == 403
    assert refused.json() == {
        "ok": False,
        "code": "spawn_denied_edge",
        "error": "role `worker` may not spawn role `tester`",
        "retryable": False,
        "requiresUserApproval": False,
        "approvalID": queued["approvalID"],
    }
    # The approval was consumed either way.
    assert (await client.get("/agent-team/approvals")).json()["count"] == 0


async def test_the_mission_bridge_spawns_per_work_item_and_cancels(
    engine: svc.Engine,
    client: httpx.AsyncClient,
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
    rows = await engine.teams.spawn_for_work_items(
        "m-bridge",
        [
            {"work_item_id": "w-1", "title": "build", "assigned_agent": "worker"},
            {"work_item_id": "w-2", "title": "test", "assigned_agent": "Tester"},
            {"work_item_id": "w-3", "title": "fly", "assigned_agent": "pilot"},
            {"work_item_id": "w-4", "title": "review", "assigned_agent": "reviewer"},
            {"work_item_id": "w-5", "title": "unassigned"},
        ],
    )
    assert [row["workItemID"] for row in rows] == ["w-1", "w-2", "w-3", "w-4"]
    ok = [row for row in rows if row["ok"]]
    assert [(r["agent"], r["status"]) for r in ok] == [("worker", "running"), ("Tester", "running")]
    assert all(r["instanceID"].startswith("ins_") and r["sessionID"] for r in ok)
    assert rows[2] == {
        "workItemID": "w-3",
        "agent": "pilot",
        "ok": False,
        "code": "UNSUPPORTED_ASSIGNED_AGENT",
        "error": rows[2]["error"],
    }
    assert rows[3] == {
        "workItemID": "w-4",
        "agent": "reviewer",
        "ok": False,
        "code": "spawn_denied_edge",
        "error": "role `orchestrator` may not spawn role `reviewer`",
    }
    instances = (
        await client.get("/agent-team/instances", params={"missionID": "m-bridge"})
    ).json()["instances"]
    assert sorted(i["role"] for i in instances) == ["tester", "worker"]
    assert {i["metadata"]["source"] for i in instances} == {"orchestrator_runtime"}
    assert {i["metadata"]["justification"] for i in instances} == {
        "mission work item w-1",
        "mission work item w-2",
    }
    requested = [e for e in await team_events(engine) if e.type == "agent_team.spawn.requested"]
    assert {e.properties["source"] for e in requested} == {"orchestrator_runtime"}

    assert await engine.teams.cancel_mission("m-bridge", "mission canceled") == 2
    statuses = (await client.get("/agent-team/instances", params={"missionID": "m-bridge"})).json()[
        "instances"
    ]
    assert {i["status"] for i in statuses} == {"cancelled"}
    assert {i["metadata"]["reason"] for i in statuses} == {"mission canceled"}
    assert await engine.teams.cancel_mission("m-bridge", "again") == 0
    assert await engine.teams.cancel_mission("m-unknown", "nothing there") == 0


async def test_the_bridge_reports_queued_spawns(
    engine: svc.Engine,
    write_policy: Callable[..., Path],
) -> None:
    write_policy(
        {
            "enabled": True,
            "spawn_edges": {"orchestrator": {"behavior": "request_only", "can_spawn": ["worker"]}},
        }
    )
    rows = await engine.teams.spawn_for_work_items(
        "m-ask", [{"work_item_id": "w-1", "assigned_agent": "worker"}]
    )
    assert rows[0]["ok"] is False and rows[0]["code"] == "spawn_requires_approval"
    assert rows[0]["requiresUserApproval"] is True
    approvals = (await engine.teams.approvals())["spawnApprovals"]
    assert approvals[0]["approvalID"] == rows[0]["approvalID"]
    assert approvals[0]["request"]["parent_role"] == "orchestrator"
    approved = await engine.teams.approve(rows[0]["approvalID"])
    assert approved.ok and approved.body["missionID"] == "m-ask"
