"""The goal actor serializes a goal's transitions: concurrent requests never race."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest
import trio

import svc
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
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    await publish(client, linear_spec())
    started = await start_goal(client)
    await run_settled(engine, started["root_run_id"])
    return str(started["goal"]["goal_id"])


async def fire(client: httpx.AsyncClient, goal_id: str, keys: list[str]) -> list[httpx.Response]:
    responses: list[httpx.Response] = []

    async def one(key: str) -> None:
        responses.append(
            await transition(
                client,
                goal_id,
                key,
                "planned",
                {**PLAN, "value": {"by": key}} if not key.startswith("same") else PLAN,
            )
        )

    async with trio.open_nursery() as nursery:
        for key in keys:
            nursery.start_soon(one, key)
    return responses


async def test_concurrent_transitions_commit_exactly_once(
    client: httpx.AsyncClient, engine: svc.Engine, goal_id: str
) -> None:
    responses = await fire(client, goal_id, [f"t{i}" for i in range(12)])
    statuses = sorted(r.status_code for r in responses)
    assert statuses.count(200) == 1, [r.text for r in responses]
    # The losers saw the goal already on the build node, whose run has not completed.
    assert all(r.json()["code"] == "goal_state_conflict" for r in responses if r.status_code != 200)
    goal = (await client.get(f"/goals/{goal_id}")).json()["goal"]
    assert (goal["hop_count"], goal["current_node_id"]) == (1, "build")
    runs = (await client.get(f"/goals/{goal_id}/runs")).json()
    assert [r["link"]["hop_index"] for r in runs["runs"]] == [0, 1]
    handoffs = (await client.get(f"/goals/{goal_id}/handoffs")).json()["handoffs"]
    assert [h["status"] for h in handoffs] == ["consumed"]


async def test_concurrent_retries_of_one_transition_agree(
    client: httpx.AsyncClient, engine: svc.Engine, goal_id: str
) -> None:
    responses = await fire(client, goal_id, ["same"] * 10)
    assert {r.status_code for r in responses} == {200}
    commits = sorted(r.json()["commit"] for r in responses)
    assert commits == ["AlreadyCommitted"] * 9 + ["Committed"]
    assert len({r.json()["downstream_run_id"] for r in responses}) == 1


async def test_one_actor_per_active_goal_and_none_after_it_ends(
    client: httpx.AsyncClient, engine: svc.Engine, goal_id: str
) -> None:
    assert engine.actors.names("goal/") == [f"goal/{goal_id}"]
    assert engine.entities.supervisor("goals").count == 1
    watch = engine.actors.watch(f"goal/{goal_id}")
    await client.post(f"/goals/{goal_id}/cancel")
    with trio.fail_after(5):
        exit = await watch.wait()  # the actor stops right after replying
    assert exit.reason == "normal" and engine.actors.lookup(f"goal/{goal_id}") is None
    # A later message re-activates it from the store and answers.
    again = await client.post(f"/goals/{goal_id}/cancel")
    assert again.status_code == 200 and again.json()["outcome"] == "AlreadyTerminal"


HELD = {
    "kind": "external_condition",
    "condition_key": {"source": "literal", "value": "go"},
    "timeout": {"expires_after_ms": 86_400_000, "on_timeout": "escalate"},
}


async def test_concurrent_mixed_mutations_apply_one_at_a_time(
    client: httpx.AsyncClient, engine: svc.Engine, goal_id: str
) -> None:
    """Transitions, pauses, resumes and a cancel racing on one goal leave one consistent history."""
    # The build node's run waits on a condition, so no run talks to the model during the burst.
    await publish(client, linear_spec(orchestration_id="held-loop", wait=HELD))
    started = await start_goal(client, key="held", orchestration_id="held-loop")
    goal_id = started["goal"]["goal_id"]
    await run_settled(engine, started["root_run_id"])
    calls = [
        (
            "post",
            f"/goals/{goal_id}/transitions",
            {
                "transition_key": "planned",
                "idempotency_key": f"t{i}",
                "artifact": {**PLAN, "value": {"n": i}},
            },
        )
        for i in range(4)
    ]
    calls += [("post", f"/goals/{goal_id}/pause", {"reason": f"p{i}"}) for i in range(3)]
    calls += [("post", f"/goals/{goal_id}/resume", {}) for _ in range(3)]
    calls += [("post", f"/goals/{goal_id}/cancel", {"reason": "stop"})]
    responses: list[httpx.Response] = []

    # A fresh client: the burst opens new connections rather than reusing pooled ones the
    # server may be closing after its keep-alive timeout while the fixture's runs went on.
    async with httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as burst:

        async def one(path: str, body: dict[str, Any]) -> None:
            responses.append(await burst.post(path, json=body))

        async with trio.open_nursery() as nursery:
            for _, path, body in calls:
                nursery.start_soon(one, path, body)
    odd = [
        (r.status_code, r.json().get("code"), r.json().get("error"))
        for r in responses
        if r.status_code not in (200, 409)
    ]
    assert odd == []

    goal = (await client.get(f"/goals/{goal_id}")).json()["goal"]
    assert goal["status"] == "cancelled"
    events = [e["event"] for e in (await client.get(f"/goals/{goal_id}/events")).json()["events"]]
    own = [e for e in events if e["run_id"] == f"goal:{goal_id}"]
    assert [e["seq"] for e in own] == list(
        range(1, len(own) + 1)
    )  # one writer: no gaps, no duplicates
    types = [e["event_type"].rsplit(".", 1)[1] for e in own]
    assert (
        types.count("cancelled") == 1 and types[-1] == "cancelled"
    )  # nothing moved the goal after it
    assert types.count("transitioned") == goal["hop_count"] <= 1
    # Pauses and resumes alternate: each one saw the state the previous one left.
    toggles = [t for t in types if t in ("paused", "resumed")]
    assert all(a != b for a, b in itertools.pairwise(toggles))
    assert not toggles or toggles[0] == "paused"


async def test_a_stopping_goal_actor_never_raises_from_its_run_watcher(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    """The watcher wakes (its run settled) after the actor began stopping: its tell
    to itself meets a closed mailbox, which must not crash the stopping actor."""
    from actors import Actor, open_actor_system

    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    await publish(client, linear_spec())
    started = await start_goal(client)
    run_id = started["root_run_id"]
    await run_settled(engine, run_id)
    actor = await engine.goals._activate("goal/" + started["goal"]["goal_id"])
    assert actor is not None
    async with open_actor_system() as system:
        # An incarnation that has stopped: its ref refuses every message.
        ref = await system.spawn("goal/stopped", Actor())
        ref.stop()
    assert not ref.alive
    actor.ref = ref
    with trio.fail_after(10):  # safety net only
        await actor._watch_run(run_id)  # returns (the run is settled) instead of raising
