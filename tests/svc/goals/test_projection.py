"""Durable goal events (pages, SSE resume), the projection (live and replay) and action dispatch."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import trio

import svc
from svc.events import EventFilter, parse_frames
from tests.helpers import read_sse
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import (
    PLAN,
    create_workflows,
    publish,
    run_settled,
    start_goal,
    step_reply,
    transition,
)


@pytest.fixture
async def goal_id(engine: svc.Engine, client: httpx.AsyncClient, fake_model: Any) -> str:
    """A goal with a pending approval-gated handoff out of its (completed) root run."""
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    await publish(client, linear_spec(approval_on="e1"))
    started = await start_goal(client)
    await run_settled(engine, started["root_run_id"])
    pending = await transition(client, started["goal"]["goal_id"], "t1", "planned", PLAN)
    assert pending.status_code == 202
    return str(started["goal"]["goal_id"])


async def events_of(client: httpx.AsyncClient, goal_id: str, **params: Any) -> dict[str, Any]:
    response = await client.get(f"/goals/{goal_id}/events", params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_event_pages_follow_the_cursor(client: httpx.AsyncClient, goal_id: str) -> None:
    everything = await events_of(client, goal_id)
    types = [e["event"]["event_type"] for e in everything["events"]]
    assert types == [
        "stateful_runtime.goal.started",
        "stateful_runtime.run.started",
        "stateful_runtime.run.settled",
        "stateful_runtime.goal.handoff_pending_approval",
    ]
    assert everything["event_source"] == "stateful_runtime"
    cursors = [e["cursor"] for e in everything["events"]]
    assert cursors == sorted(cursors) and everything["last_cursor"] == cursors[-1]
    first = everything["events"][0]["event"]
    assert (
        first["run_id"] == f"goal:{goal_id}"
        and first["seq"] == 1
        and first["correlation_id"] == goal_id
    )
    assert first["scope"]["tenant_context"]["org_id"] == "local"
    assert "snapshot" not in first and "projection_snapshot" not in first

    page = await events_of(client, goal_id, limit=2)
    assert [e["cursor"] for e in page["events"]] == cursors[:2]
    rest = await events_of(client, goal_id, cursor=page["last_cursor"], limit=5000)
    assert [e["cursor"] for e in rest["events"]] == cursors[2:]
    empty = await events_of(client, goal_id, cursor=cursors[-1])
    assert empty == {
        "goal_id": goal_id,
        "events": [],
        "count": 0,
        "last_cursor": None,
        "event_source": "stateful_runtime",
    }
    assert (await client.get("/goals/goal-nope/events")).status_code == 404


async def test_sse_resumes_after_last_event_id_and_tails(
    client: httpx.AsyncClient, goal_id: str
) -> None:
    cursors = [e["cursor"] for e in (await events_of(client, goal_id))["events"]]
    frames: list[dict[str, str]] = []
    caught_up = trio.Event()

    async def read(response: httpx.Response, want: int) -> None:
        buffer = ""
        with trio.CancelScope() as scope:
            async for chunk in response.aiter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    frames.extend(parse_frames(block + "\n\n"))
                if len(frames) >= 3:
                    caught_up.set()
                if len(frames) >= want:
                    scope.cancel()

    async with client.stream(
        "GET", f"/goals/{goal_id}/events/stream", headers={"Last-Event-ID": str(cursors[1])}
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(read, response, 4)
            await caught_up.wait()
            # Live: a change made while the client is connected arrives on the same stream.
            await client.post(f"/goals/{goal_id}/pause", json={"reason": "live"})
    ready = json.loads(frames[0]["data"])
    assert frames[0]["event"] == "ready" and "id" not in frames[0]
    assert ready["goal_id"] == goal_id and ready["cursor"] == cursors[1]
    assert [int(f["id"]) for f in frames[1:3]] == cursors[2:]
    assert frames[3]["event"] == "stateful_runtime.goal.paused"
    body = json.loads(frames[3]["data"])
    assert body["cursor"] == int(frames[3]["id"]) > cursors[-1]
    assert body["event"]["payload"]["reason"] == "live"

    # The JSON route answers SSE too, resuming from ?cursor=.
    async with client.stream(
        "GET",
        f"/goals/{goal_id}/events",
        params={"cursor": cursors[2]},
        headers={"Accept": "text/event-stream"},
    ) as response:
        again = await read_sse(response, 3)
    assert [f.get("event") for f in again] == [
        "ready",
        "stateful_runtime.goal.handoff_pending_approval",
        "stateful_runtime.goal.paused",
    ]
    bad = await client.get(f"/goals/{goal_id}/events/stream", headers={"Last-Event-ID": "x"})
    assert bad.status_code == 400


async def test_live_projection(client: httpx.AsyncClient, goal_id: str) -> None:
    projection = (await client.get(f"/goals/{goal_id}/projection")).json()
    assert projection["mode"] == "live" and projection["schema_version"] == 1
    assert projection["historical_state"] == {"source": "current_goal", "exact": True}
    assert (
        projection["cursor"] == projection["live_cursor"] > projection["retained_from_cursor"] > 0
    )
    assert projection["goal"]["status"] == "waiting"
    assert projection["orchestration_source"] == "goal_metadata_snapshot"
    assert projection["orchestration"]["version"] == 1
    nodes = {n["node_id"]: n["state"] for n in projection["graph"]["nodes"]}
    assert nodes == {"plan": "approval", "build": "not_started", "finish": "not_started"}
    edges = {e["edge"]["edge_id"]: e["state"] for e in projection["graph"]["edges"]}
    assert edges == {"e1": "claiming", "e9": "not_started"}
    assert projection["workflow"]["status"] == "completed"
    assert projection["workflow"]["checkpoint"]["completed_nodes"] == ["wf-plan-work"]
    assert projection["timeline"]["count"] == 4 and projection["timeline"]["truncated"] is False
    assert projection["budgets"]["consumed"]["hops"] == 0
    actions = {a["id"]: a for a in projection["actions"]}
    [decision] = [a for a in actions if a.startswith("handoff:")]
    assert (
        actions[decision]["decision_options"] == ["approve", "reject"]
        and actions[decision]["enabled"]
    )
    assert actions["pause"]["enabled"] and actions["cancel"]["enabled"]
    assert (actions["resume"]["enabled"], actions["resume"]["disabled_reason"]) == (
        False,
        "goal_not_paused",
    )
    limited = (await client.get(f"/goals/{goal_id}/projection", params={"limit": 2})).json()
    assert limited["timeline"]["count"] == 2 and limited["timeline"]["truncated"] is True
    assert limited["timeline"]["limit"] == 2


async def test_replayed_projection_is_the_state_at_the_cursor(
    client: httpx.AsyncClient, goal_id: str
) -> None:
    cursors = [e["cursor"] for e in (await events_of(client, goal_id))["events"]]
    replay = (
        await client.get(f"/goals/{goal_id}/projection", params={"cursor": cursors[2]})
    ).json()
    assert replay["mode"] == "replay" and replay["cursor"] == cursors[2]
    assert replay["historical_state"]["source"] == "projection_snapshot"
    assert replay["goal"]["status"] == "active"  # before the handoff waited for approval
    assert replay["handoffs"] == []
    assert [e["cursor"] for e in replay["timeline"]["events"]] == cursors[:3]
    assert all(
        not a["enabled"] and a["disabled_reason"] == "historical_projection_read_only"
        for a in replay["actions"]
    )
    assert replay["graph"]["nodes"][0]["runs"][0]["status"] == "completed"


async def test_actions_dispatch_with_the_live_token(
    client: httpx.AsyncClient, engine: svc.Engine, goal_id: str
) -> None:
    live = (await client.get(f"/goals/{goal_id}/projection")).json()
    token = live["goal"]["updated_at_ms"]
    stale = await client.post(
        f"/goals/{goal_id}/actions/pause",
        json={"expected_updated_at_ms": token - 1, "idempotency_key": "a1", "reason": "x"},
    )
    assert stale.status_code == 409 and stale.json()["code"] == "stale_goal_action"
    assert stale.json()["current_updated_at_ms"] == token
    no_reason = await client.post(
        f"/goals/{goal_id}/actions/pause",
        json={"expected_updated_at_ms": token, "idempotency_key": "a1"},
    )
    assert (
        no_reason.status_code == 400 and no_reason.json()["code"] == "goal_action_reason_required"
    )
    unavailable = await client.post(
        f"/goals/{goal_id}/actions/resume",
        json={"expected_updated_at_ms": token, "idempotency_key": "a0"},
    )
    assert unavailable.status_code == 409
    assert (unavailable.json()["code"], unavailable.json()["detail"]) == (
        "goal_action_not_available",
        "goal_not_paused",
    )
    no_key = await client.post(
        f"/goals/{goal_id}/actions/pause", json={"expected_updated_at_ms": token}
    )
    assert no_key.status_code == 400 and no_key.json()["code"] == "invalid_goal_action"

    body = {"expected_updated_at_ms": token, "idempotency_key": "a1", "reason": "needs a look"}
    paused = await client.post(f"/goals/{goal_id}/actions/pause", json=body)
    assert paused.status_code == 200, paused.text
    result = paused.json()
    assert result["action"] == {
        "id": "pause",
        "result": {"outcome": "paused", "goal": result["goal"]},
    }
    assert result["goal"]["status"] == "paused"
    assert (
        result["projection"]["mode"] == "live"
        and result["projection_cursor"] == result["projection"]["cursor"]
    )
    assert (await client.post(f"/goals/{goal_id}/actions/pause", json=body)).json() == result
    conflict = await client.post(
        f"/goals/{goal_id}/actions/pause", json={**body, "reason": "other"}
    )
    assert (
        conflict.status_code == 409
        and conflict.json()["code"] == "goal_action_idempotency_conflict"
    )

    token = result["goal"]["updated_at_ms"]
    handoff_id = (await client.get(f"/goals/{goal_id}/handoffs")).json()["handoffs"][0][
        "handoff_id"
    ]
    action = f"handoff:{handoff_id}:decision"
    reject = await client.post(
        f"/goals/{goal_id}/actions/{action}",
        json={"expected_updated_at_ms": token, "idempotency_key": "a2", "decision": "reject"},
    )
    assert reject.status_code == 400 and reject.json()["code"] == "goal_action_reason_required"
    decided = await client.post(
        f"/goals/{goal_id}/actions/{action}",
        json={"expected_updated_at_ms": token, "idempotency_key": "a2", "decision": "approve"},
    )
    assert decided.status_code == 200, decided.text
    assert decided.json()["action"]["result"]["outcome"] == "decided"
    assert decided.json()["action"]["result"]["handoff"]["status"] == "approved"
    token = decided.json()["goal"]["updated_at_ms"]
    again = await client.post(
        f"/goals/{goal_id}/actions/{action}",
        json={"expected_updated_at_ms": token, "idempotency_key": "a3", "decision": "approve"},
    )
    assert (
        again.status_code == 200
        and again.json()["action"]["result"]["outcome"] == "already_decided"
    )
    receipts = await engine.events.replay(
        EventFilter(topic=f"goal/{goal_id}", types={"orchestration.goal.action_receipt"})
    )
    assert [e.properties["action"] for e in receipts] == ["pause", action]
