"""Operator controls of automation v2 runs over HTTP: pause/resume an automation; pause, resume,
recover and repair a run; retry, continue, requeue and preview-reset a node; backlog claims."""

from __future__ import annotations

from typing import Any

import httpx
import trio

import svc
from svc.events import EventFilter, EventStream
from tests.helpers import wait_for_event

from .support import node, replies_by_step, user_prompt, v2_spec

TERMINAL = ("run.completed", "run.failed", "run.cancelled")


async def settled(engine: svc.Engine, run_id: str, nth: int = 1) -> Any:
    """The run once its ``nth`` terminal event is out (a controlled run ends more than once)."""
    seen = 0
    with (
        trio.fail_after(30),
        EventStream(
            engine.events, EventFilter(run_id=run_id, topic="automations/v2"), after_seq=0
        ) as stream,
    ):
        while True:
            for event in await stream.receive():
                if event.type in TERMINAL:
                    seen += 1
                    if seen == nth:
                        return await engine.automations.get_v2_run(run_id)


async def started(engine: svc.Engine, run_id: str, node_id: str) -> None:
    await wait_for_event(
        engine,
        "run.step",
        run_id=run_id,
        where=lambda e: (
            e.properties.get("phase") == "node_started" and e.properties.get("nodeID") == node_id
        ),
    )


async def create(client: httpx.AsyncClient, automation_id: str = "pipe") -> None:
    body = v2_spec([node("a", "worker"), node("b", "worker", deps=["a"])])
    response = await client.post("/automations/v2", json={**body, "automation_id": automation_id})
    assert response.status_code == 200, response.text


async def run_now(client: httpx.AsyncClient, automation_id: str = "pipe") -> str:
    response = await client.post(f"/automations/v2/{automation_id}/run_now", json={})
    return str(response.json()["run"]["run_id"])


async def test_pausing_and_resuming_an_automation(client: httpx.AsyncClient) -> None:
    await create(client)
    paused = await client.post("/automations/v2/pipe/pause", json={"reason": "holiday"})
    assert paused.status_code == 200 and paused.json()["automation"]["status"] == "paused"
    assert (await client.get("/automations/v2/pipe")).json()["automation"]["status"] == "paused"
    resumed = await client.post("/automations/v2/pipe/resume", json={})
    assert resumed.json()["automation"]["status"] == "active"


async def test_a_paused_run_waits_then_resumes_from_its_completed_nodes(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    gates = {"a": trio.Event()}
    fake_model.default = replies_by_step(gates)
    await create(client)
    run_id = await run_now(client)
    await started(engine, run_id, "a")

    paused = await client.post(f"/automations/v2/runs/{run_id}/pause", json={"reason": "lunch"})
    assert paused.status_code == 200, paused.text
    run = paused.json()["run"]
    assert run["status"] == "paused" and run["node_statuses"] == {"a": "pending", "b": "pending"}
    assert run["detail"] == "lunch"
    again = await client.post(f"/automations/v2/runs/{run_id}/pause", json={})
    assert again.status_code == 409 and again.json()["code"] == "AUTOMATION_V2_RUN_NOT_PAUSABLE"

    del gates["a"]
    resumed = await client.post(f"/automations/v2/runs/{run_id}/resume", json={})
    assert resumed.status_code == 200 and resumed.json()["run"]["status"] == "queued"
    done = await settled(engine, run_id)
    assert done.status == "completed" and done.nodes["a"].attempts == 2
    not_paused = await client.post(f"/automations/v2/runs/{run_id}/resume", json={})
    assert not_paused.status_code == 409
    assert not_paused.json()["code"] == "AUTOMATION_V2_RUN_NOT_PAUSED"


async def test_a_cancelled_run_recovers_from_its_completed_nodes(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    gates = {"b": trio.Event()}
    fake_model.default = replies_by_step(gates)
    await create(client)
    run_id = await run_now(client)
    await started(engine, run_id, "b")
    await client.post(f"/automations/v2/runs/{run_id}/cancel", json={"reason": "oops"})
    assert (await engine.automations.get_v2_run(run_id)).status == "cancelled"

    del gates["b"]
    recovered = await client.post(f"/automations/v2/runs/{run_id}/recover", json={})
    assert recovered.status_code == 200, recovered.text
    assert recovered.json()["run"]["node_statuses"] == {"a": "completed", "b": "pending"}
    done = await settled(engine, run_id, 2)
    assert done.status == "completed" and done.nodes["a"].attempts == 1
    nothing = await client.post(f"/automations/v2/runs/{run_id}/recover", json={})
    assert nothing.status_code == 409
    assert nothing.json()["code"] == "AUTOMATION_V2_RUN_NOT_RECOVERABLE"


async def test_node_retry_continue_requeue_and_reset_preview(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    await create(client)
    run_id = await run_now(client)
    await settled(engine, run_id)
    base = f"/automations/v2/runs/{run_id}/tasks"

    preview = (await client.get(f"{base}/a/reset_preview")).json()
    assert preview["reset_nodes"] == ["a", "b"] and preview["preserved_nodes"] == []
    assert (await client.get(f"{base}/b/reset_preview")).json()["preserved_nodes"] == ["a"]
    unknown = await client.get(f"{base}/zzz/reset_preview")
    assert unknown.status_code == 404 and unknown.json()["code"] == "AUTOMATION_V2_TASK_NOT_FOUND"

    retried = (await client.post(f"{base}/a/retry", json={"reason": "again"})).json()
    assert retried["reset_nodes"] == ["a", "b"] and retried["run"]["status"] == "queued"
    done = await settled(engine, run_id, 2)
    assert done.status == "completed" and done.nodes["a"].attempts == 1
    # continue: the node again with its attempts counted on; completed dependants stay
    continued = (await client.post(f"{base}/a/continue", json={})).json()
    assert continued["reset_nodes"] == ["a"]
    done = await settled(engine, run_id, 3)
    assert done.nodes["a"].attempts == 2 and done.nodes["b"].attempts == 1
    # requeue: attempts start over
    requeued = (await client.post(f"{base}/b/requeue", json={})).json()
    assert requeued["reset_nodes"] == ["b"]
    done = await settled(engine, run_id, 4)
    assert done.status == "completed" and done.nodes["b"].attempts == 1


async def test_a_task_control_on_an_active_run_is_a_conflict(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    hold = trio.Event()
    fake_model.default = replies_by_step({"a": hold})
    await create(client)
    run_id = await run_now(client)
    await started(engine, run_id, "a")
    busy = await client.post(f"/automations/v2/runs/{run_id}/tasks/a/retry", json={})
    assert busy.status_code == 409 and busy.json()["code"] == "AUTOMATION_V2_RUN_ACTIVE"
    hold.set()
    await settled(engine, run_id)


async def test_repair_guidance_reaches_the_nodes_next_prompt(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    await create(client)
    run_id = await run_now(client)
    await settled(engine, run_id)
    repaired = await client.post(
        f"/automations/v2/runs/{run_id}/repair",
        json={"node_id": "b", "guidance": "cite the source file"},
    )
    assert repaired.status_code == 200, repaired.text
    assert repaired.json()["repaired_node_ids"] == ["b"] and repaired.json()["ok"] is True
    await settled(engine, run_id, 2)
    assert "cite the source file" in user_prompt(fake_model.requests[-1])


async def test_backlog_claims_are_recorded_and_released(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    gates = {"a": trio.Event()}
    fake_model.default = replies_by_step(gates)
    await create(client)
    run_id = await run_now(client)
    await started(engine, run_id, "a")
    await client.post(f"/automations/v2/runs/{run_id}/pause", json={})
    base = f"/automations/v2/runs/{run_id}/backlog/tasks"

    claimed = await client.post(f"{base}/b/claim", json={"agent_id": "worker-7"})
    assert claimed.status_code == 200, claimed.text
    assert claimed.json()["task"]["claimant"] == "worker-7"
    claims = claimed.json()["run"]["checkpoint"]["backlog_claims"]
    assert claims["b"]["claimant"] == "worker-7"
    taken = await client.post(f"{base}/b/claim", json={"agent_id": "someone-else"})
    assert taken.status_code == 409 and taken.json()["code"] == "AUTOMATION_V2_TASK_ALREADY_CLAIMED"

    released = (await client.post(f"{base}/b/requeue", json={"reason": "give back"})).json()
    assert released["released_claim"]["claimant"] == "worker-7"
    assert released["run"]["checkpoint"]["backlog_claims"] == {}
    await client.post(f"/automations/v2/runs/{run_id}/cancel", json={})
