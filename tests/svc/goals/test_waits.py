"""Waits holding a run before it starts: external conditions resolved over HTTP, idempotently."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import svc
from tests.helpers import wait_for_event
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import (
    BUILD_REPORT,
    PLAN,
    create_workflows,
    publish,
    run_settled,
    start_goal,
    step_reply,
    transition,
)

CONDITION = {
    "kind": "external_condition",
    "condition_key": {"source": "literal", "value": "release-window-open"},
    "payload_schema": {
        "type": "object",
        "required": ["window"],
        "properties": {"window": {"type": "string"}},
    },
    "timeout": {
        "expires_after_ms": 86_400_000,
        "on_timeout": "escalate",
        "escalate_to": "release-managers",
    },
}


@pytest.fixture
async def waiting(engine: svc.Engine, client: httpx.AsyncClient, fake_model: Any) -> dict[str, Any]:
    """A goal whose review run waits on an external condition."""
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build", "wf-review")
    await publish(client, linear_spec(review="wf-review", wait=CONDITION))
    started = await start_goal(client)
    goal_id = started["goal"]["goal_id"]
    await run_settled(engine, started["root_run_id"])
    build = (await transition(client, goal_id, "t1", "planned", PLAN)).json()
    await run_settled(engine, build["downstream_run_id"])
    review = await transition(client, goal_id, "t2", "built", BUILD_REPORT)
    assert review.status_code == 200, review.text
    return {"goal_id": goal_id, "run_id": review.json()["downstream_run_id"]}


async def test_the_run_waits_until_the_condition_is_resolved(
    client: httpx.AsyncClient, engine: svc.Engine, waiting: dict[str, Any], fake_model: Any
) -> None:
    goal_id, run_id = waiting["goal_id"], waiting["run_id"]
    waits = (await client.get(f"/goals/{goal_id}/waits")).json()
    assert waits["count"] == 1
    wait = waits["waits"][0]
    assert (wait["wait_kind"], wait["status"], wait["run_id"], wait["phase_id"]) == (
        "external_condition",
        "waiting",
        run_id,
        "review",
    )
    assert wait["metadata"]["details"]["condition_key"] == "release-window-open"
    assert wait["timeout_policy"]["on_timeout"] == "escalate"
    assert await engine.automations.get_v2_run(run_id) is None  # held before it starts
    runs = (await client.get(f"/goals/{goal_id}/runs")).json()
    assert runs["runs"][-1]["run"] is None and runs["active_run_id"] == run_id
    graph = (await client.get(f"/goals/{goal_id}/graph")).json()
    review = next(n for n in graph["nodes"] if n["node_id"] == "review")
    assert review["state"] == "current" and review["runs"][0]["status"] == "waiting"
    one = (await client.get(f"/goals/{goal_id}/waits/{wait['wait_id']}")).json()
    assert one["wait"] == wait
    assert (await client.get(f"/goals/{goal_id}/waits/wait-nope")).status_code == 404

    path = f"/goals/{goal_id}/waits/{wait['wait_id']}/resolve"
    no_key = await client.post(path, json={"payload": {"window": "now"}})
    assert no_key.status_code == 400 and no_key.json()["field"] == "idempotency_key"
    too_big = await client.post(
        path, json={"idempotency_key": "r1", "payload": {"window": "x" * 20_000}}
    )
    assert too_big.status_code == 400 and too_big.json()["field"] == "payload"
    off_schema = await client.post(path, json={"idempotency_key": "r1", "payload": {"window": 3}})
    assert off_schema.status_code == 400 and off_schema.json()["problems"] == [
        "$.window must be string"
    ]
    agent = await client.post(
        path,
        json={"idempotency_key": "r1", "payload": {"window": "now"}},
        headers={"x-svc-agent-id": "release-bot"},
    )
    assert agent.status_code == 403

    resolved = await client.post(path, json={"idempotency_key": "r1", "payload": {"window": "now"}})
    assert resolved.status_code == 200, resolved.text
    woken = resolved.json()["wait"]
    assert (
        woken["status"] == "woken"
        and woken["wake_idempotency_key"] == f"external:{wait['wait_id']}:r1"
    )
    assert woken["metadata"]["resolution"] == {"window": "now"}
    run = await run_settled(engine, run_id)
    assert run.status == "completed"
    assert run.context["wait"]["resolution"] == {"window": "now"}  # the same run continues with it
    review_prompt = str(fake_model.requests[-1].body["messages"])
    assert "window" in review_prompt and "now" in review_prompt

    again = await client.post(path, json={"idempotency_key": "r1", "payload": {"window": "now"}})
    assert again.status_code == 200 and again.json()["wait"] == woken
    other = await client.post(path, json={"idempotency_key": "r2", "payload": {"window": "later"}})
    assert other.status_code == 409 and other.json()["code"] == "wait_resolution_conflict"
    events = [
        (e["event"]["event_type"], e["event"]["run_id"])
        for e in (await client.get(f"/goals/{goal_id}/events")).json()["events"]
    ]
    tail = events[events.index(("stateful_runtime.wait.created", run_id)) :]
    assert tail == [
        ("stateful_runtime.wait.created", run_id),
        ("stateful_runtime.wait.external_condition_resolved", run_id),
        ("stateful_runtime.run.started", run_id),
        ("stateful_runtime.run.settled", run_id),
    ]


async def test_cancelling_settles_the_owned_wait(
    client: httpx.AsyncClient, engine: svc.Engine, waiting: dict[str, Any]
) -> None:
    goal_id = waiting["goal_id"]
    cancelled = (
        await client.post(f"/goals/{goal_id}/cancel", json={"reason": "window closed"})
    ).json()
    [wait_id] = cancelled["cancelled_wait_ids"]
    assert cancelled["cancelled_run_id"] == waiting["run_id"]
    wait = (await client.get(f"/goals/{goal_id}/waits/{wait_id}")).json()["wait"]
    assert (
        wait["status"] == "cancelled" and wait["wake_idempotency_key"] == f"goal-cancel:{wait_id}"
    )
    late = await client.post(
        f"/goals/{goal_id}/waits/{wait_id}/resolve",
        json={"idempotency_key": "r1", "payload": {"window": "now"}},
    )
    assert late.status_code == 409 and late.json()["code"] == "wait_resolution_conflict"
    assert await engine.automations.get_v2_run(waiting["run_id"]) is None  # it never started


async def test_a_paused_goal_keeps_the_resolved_run_until_resumed(
    client: httpx.AsyncClient, engine: svc.Engine, waiting: dict[str, Any]
) -> None:
    goal_id, run_id = waiting["goal_id"], waiting["run_id"]
    await client.post(f"/goals/{goal_id}/pause")
    wait_id = (await client.get(f"/goals/{goal_id}/waits")).json()["waits"][0]["wait_id"]
    resolved = await client.post(
        f"/goals/{goal_id}/waits/{wait_id}/resolve",
        json={"idempotency_key": "r1", "payload": {"window": "now"}},
    )
    assert resolved.status_code == 200
    assert await engine.automations.get_v2_run(run_id) is None
    await client.post(f"/goals/{goal_id}/resume")
    await wait_for_event(engine, "run.completed", run_id=run_id)


async def test_the_projection_offers_the_wait_and_resolves_it(
    client: httpx.AsyncClient, engine: svc.Engine, waiting: dict[str, Any]
) -> None:
    goal_id, run_id = waiting["goal_id"], waiting["run_id"]
    projection = (await client.get(f"/goals/{goal_id}/projection")).json()
    review = next(n for n in projection["graph"]["nodes"] if n["node_id"] == "review")
    assert review["state"] == "external_wait"
    [action] = [a for a in projection["actions"] if a["kind"] == "wait"]
    assert action["payload_fields"][0]["format"] == "json" and action["enabled"]
    dispatched = await client.post(
        f"/goals/{goal_id}/actions/{action['id']}",
        json={
            "expected_updated_at_ms": projection["goal"]["updated_at_ms"],
            "idempotency_key": "resolve-1",
            "payload": {"window": "friday"},
        },
    )
    assert dispatched.status_code == 200, dispatched.text
    result = dispatched.json()["action"]["result"]
    assert result["outcome"] == "resolved" and result["wait"]["status"] == "woken"
    assert result["wait"]["wake_idempotency_key"].endswith(":resolve-1")
    run = await run_settled(engine, run_id)
    assert run.context["wait"]["resolution"] == {"window": "friday"}
