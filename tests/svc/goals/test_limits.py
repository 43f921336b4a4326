"""Page bounds of the read models (goal list, event pages, projection timeline), the cost limit over
HTTP, status filters, and snake_case keys in every raw goal and orchestration payload."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import svc
from svc.goals import LOCAL_CALLER, StartGoal, parse_spec
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

# A root run held by an external condition never reaches the model: goals stay cheap and open.
HELD = {
    "kind": "external_condition",
    "condition_key": {"source": "literal", "value": "go"},
    "timeout": {"expires_after_ms": 86_400_000, "on_timeout": "escalate"},
}


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings], fake_model: Any) -> svc.Settings:
    # A token price, so that runs cost something and max_total_cost_usd can bite.
    return make_settings(
        default_provider="openai",
        token_cost_per_1k_usd=1.0,
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )


@pytest.fixture
async def held(engine: svc.Engine, fake_model: Any) -> str:
    """A published orchestration whose root run waits on an external condition; its id."""
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    body = linear_spec()
    body["nodes"][0]["wait"] = HELD
    orchestrations = engine.goals.orchestrations
    draft = await orchestrations.create_draft(LOCAL_CALLER, parse_spec(body))
    await orchestrations.refresh_references(
        LOCAL_CALLER, draft.orchestration_id, draft.updated_at_ms
    )
    await orchestrations.publish(LOCAL_CALLER, draft.orchestration_id, None)
    return draft.orchestration_id


async def test_goal_list_pages_default_to_100_and_cap_at_500(
    client: httpx.AsyncClient, engine: svc.Engine, held: str
) -> None:
    for i in range(501):
        await engine.goals.start(LOCAL_CALLER, StartGoal(held, f"goal {i}", f"k{i}"))
    default = (await client.get("/goals")).json()
    assert default["count"] == len(default["goals"]) == 100
    capped = (await client.get("/goals", params={"limit": 5000})).json()
    assert capped["count"] == 500
    stamps = [(g["updated_at_ms"], g["goal_id"]) for g in capped["goals"]]
    assert stamps == sorted(stamps, key=lambda s: (-s[0], s[1]))  # newest first
    assert (await client.get("/goals", params={"limit": 3})).json()["count"] == 3
    assert (await client.get("/goals", params={"status": "active", "limit": 500})).json()[
        "count"
    ] == 500
    assert (await client.get("/goals", params={"status": "completed"})).json()["count"] == 0
    bogus = await client.get("/goals", params={"status": "running"})
    assert bogus.status_code == 400 and bogus.json()["field"] == "status"
    assert (await client.get("/goals", params={"limit": "many"})).status_code == 400
    assert (await client.get("/orchestrations", params={"status": "live"})).status_code == 400


async def test_event_pages_and_the_timeline_are_bounded(
    client: httpx.AsyncClient, engine: svc.Engine, held: str
) -> None:
    started = await engine.goals.start(LOCAL_CALLER, StartGoal(held, "busy goal", "busy"))
    goal_id = started["goal"]["goal_id"]
    for i in range(520):
        await engine.goals.pause(LOCAL_CALLER, goal_id, f"look {i}")
        await engine.goals.resume(LOCAL_CALLER, goal_id)
    total = len(await engine.goals.event_list(goal_id, limit=5000))
    assert total > 1000

    default = (await client.get(f"/goals/{goal_id}/events")).json()
    assert default["count"] == 250
    capped = (await client.get(f"/goals/{goal_id}/events", params={"limit": 5000})).json()
    assert capped["count"] == 1000
    rest = (
        await client.get(
            f"/goals/{goal_id}/events", params={"cursor": capped["last_cursor"], "limit": 1000}
        )
    ).json()
    assert capped["count"] + rest["count"] == total
    cursors = [e["cursor"] for e in capped["events"] + rest["events"]]
    assert cursors == sorted(set(cursors))  # each event exactly once, in cursor order

    projection = (await client.get(f"/goals/{goal_id}/projection")).json()
    timeline = projection["timeline"]
    assert (timeline["count"], timeline["limit"], timeline["truncated"]) == (100, 100, True)
    assert timeline["events"][-1]["cursor"] == projection["live_cursor"] == cursors[-1]
    widest = (await client.get(f"/goals/{goal_id}/projection", params={"limit": 1000})).json()[
        "timeline"
    ]
    assert (widest["count"], widest["limit"]) == (250, 250)
    assert [e["cursor"] for e in widest["events"]] == cursors[-250:]


async def test_cost_limit_fails_the_goal_when_the_policy_says_so(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    await publish(
        client, linear_spec(goal_policy={"max_total_cost_usd": 0.000001, "on_limit": "fail"})
    )
    started = await start_goal(client)
    goal_id = started["goal"]["goal_id"]
    root = await run_settled(engine, started["root_run_id"])
    assert root.usage["estimated_cost_usd"] > 0.000001
    refused = await transition(client, goal_id, "t1", "planned", PLAN)
    assert refused.status_code == 400
    assert (refused.json()["check"], refused.json()["limit"], refused.json()["goal_status"]) == (
        "limits",
        "cost_limit",
        "failed",
    )
    goal = (await client.get(f"/goals/{goal_id}")).json()
    assert goal["status"] == "failed" and goal["goal"]["finished_at_ms"] is not None
    assert goal["budgets"]["consumed"]["hops"] == 0
    assert (await client.get(f"/goals/{goal_id}/handoffs")).json()[
        "count"
    ] == 0  # nothing was handed off


SNAKE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")
# Values that carry caller-supplied JSON (artifacts, wait resolutions, metadata) or another domain's
# records (an automation spec, a run's node outputs) keep their own keys.
OPAQUE = {
    "value",
    "payload",
    "resolution",
    "metadata",
    "snapshot",
    "node_outputs",
    "node_attempts",
    "backlog_claims",
    "outputs",
    "schema",
    "payload_schema",
    "context",
}


def camel_keys(value: Any, path: str = "$") -> list[str]:
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if not SNAKE.match(str(key)):
                found.append(f"{path}.{key}")
            if key not in OPAQUE:
                found.extend(camel_keys(item, f"{path}.{key}"))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(camel_keys(item, f"{path}[{i}]"))
    return found


async def test_raw_payload_keys_are_snake_case(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build", "wf-review")
    spec = linear_spec(review="wf-review", approval_on="e2", wait=HELD)
    responses: dict[str, Any] = {"publish": await publish(client, spec)}
    started = await start_goal(client)
    responses["start"] = started
    goal_id = started["goal"]["goal_id"]
    await run_settled(engine, started["root_run_id"])
    moved = await transition(client, goal_id, "t1", "planned", PLAN)
    responses["transition"] = moved.json()
    await run_settled(engine, moved.json()["downstream_run_id"])
    pending = await transition(client, goal_id, "t2", "built", BUILD_REPORT)
    responses["pending"] = pending.json()
    handoff_id = pending.json()["handoff"]["handoff_id"]
    responses["decision"] = (
        await client.post(
            f"/goals/{goal_id}/handoffs/{handoff_id}/decision", json={"decision": "approve"}
        )
    ).json()
    responses["committed"] = (await transition(client, goal_id, "t2", "built", BUILD_REPORT)).json()
    wait_id = (await client.get(f"/goals/{goal_id}/waits")).json()["waits"][0]["wait_id"]

    base = "/orchestrations/release-loop"
    for name, path in (
        ("orchestrations", "/orchestrations"),
        ("orchestration", base),
        ("versions", f"{base}/versions"),
        ("version", f"{base}/versions/1"),
        ("stale", f"{base}/stale-references"),
        ("goals", "/goals"),
        ("goal", f"/goals/{goal_id}"),
        ("graph", f"/goals/{goal_id}/graph"),
        ("runs", f"/goals/{goal_id}/runs"),
        ("artifacts", f"/goals/{goal_id}/artifacts"),
        ("budgets", f"/goals/{goal_id}/budgets"),
        ("handoffs", f"/goals/{goal_id}/handoffs"),
        ("waits", f"/goals/{goal_id}/waits"),
        ("wait", f"/goals/{goal_id}/waits/{wait_id}"),
        ("projection", f"/goals/{goal_id}/projection"),
        ("events", f"/goals/{goal_id}/events"),
    ):
        response = await client.get(path)
        assert response.status_code == 200, (path, response.text)
        responses[name] = response.json()
    first_cursor = responses["events"]["events"][0]["cursor"]
    responses["replay"] = (
        await client.get(f"/goals/{goal_id}/projection", params={"cursor": first_cursor})
    ).json()
    responses["validate"] = (await client.post(f"{base}/validate")).json()
    responses["dry_run"] = (
        await client.post(
            f"{base}/dry-run", json={"fromNodeId": "plan", "transitionKey": "planned"}
        )
    ).json()
    responses["resolve"] = (
        await client.post(
            f"/goals/{goal_id}/waits/{wait_id}/resolve",
            json={"idempotency_key": "r1", "payload": {"windowOpen": True}},
        )
    ).json()
    # Let the released review run finish: cancelling it mid-request is not what this test is about.
    await run_settled(engine, responses["committed"]["downstream_run_id"])
    token = (await client.get(f"/goals/{goal_id}")).json()["goal"]["updated_at_ms"]
    responses["action"] = (
        await client.post(
            f"/goals/{goal_id}/actions/pause",
            json={"expected_updated_at_ms": token, "idempotency_key": "a1", "reason": "check"},
        )
    ).json()
    responses["cancel"] = (await client.post(f"/goals/{goal_id}/cancel")).json()

    assert responses["resolve"]["wait"]["metadata"]["resolution"] == {
        "windowOpen": True
    }  # caller keys kept
    assert (
        responses["action"]["action"]["id"] == "pause"
        and responses["cancel"]["outcome"] == "Applied"
    )
    assert responses["committed"]["commit"] == "Committed"
    offenders = {name: camel_keys(body) for name, body in responses.items()}
    assert {name: keys for name, keys in offenders.items() if keys} == {}
