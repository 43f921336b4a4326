"""Automation v2 over HTTP: create, list, patch, delete, run_now, runs, cancel, gates, the SSE
stream."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import trio

import svc
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import read_sse, wait_for_event

from .support import agent, node, replies_by_step, settled, step_of, user_prompt, v2_spec


async def test_create_list_get_patch_delete(client: httpx.AsyncClient) -> None:
    created = await client.post(
        "/automations/v2", json=v2_spec([node("a", "worker")], automation_id="nightly")
    )
    assert created.status_code == 200, created.text
    automation = created.json()["automation"]
    assert automation["automation_id"] == "nightly" and automation["status"] == "active"
    assert (
        automation["definition_hash"].startswith("sha256:")
        and automation["creator_type"] == "human"
    )
    assert automation["schedule"] == {
        "type": "manual",
        "timezone": "UTC",
        "misfire_policy": {"type": "run_once"},
    }
    assert (
        await client.post(
            "/automations/v2", json=v2_spec([node("a", "worker")], automation_id="nightly")
        )
    ).status_code == 409

    listed = (await client.get("/automations/v2")).json()
    assert listed["count"] == 1 and listed["automations"][0]["flow"]["nodes"][0]["node_id"] == "a"
    summary = (await client.get("/automations/v2", params={"view": "summary"})).json()[
        "automations"
    ][0]
    assert summary["node_count"] == 1 and "flow" not in summary
    assert (await client.get("/automations/v2/nightly")).json()["automation"]["name"] == "pipeline"

    patched = await client.patch(
        "/automations/v2/nightly",
        json={
            "name": "renamed",
            "schedule": {
                "type": "interval",
                "interval_seconds": 60,
                "timezone": "UTC",
                "misfire_policy": "skip",
            },
        },
    )
    body = patched.json()["automation"]
    assert body["name"] == "renamed" and body["schedule"]["misfire_policy"] == {"type": "skip"}
    assert (
        body["next_fire_at_ms"] is not None
        and body["definition_hash"] != automation["definition_hash"]
    )
    broken = await client.patch(
        "/automations/v2/nightly", json={"flow": {"nodes": [node("x", "nobody")]}}
    )
    assert broken.status_code == 400 and broken.json()["node_id"] == "x"

    deleted = await client.delete("/automations/v2/nightly")
    assert deleted.json()["ok"] is True
    missing = await client.get("/automations/v2/nightly")
    assert missing.status_code == 404 and missing.json()["code"] == "AUTOMATION_V2_NOT_FOUND"


async def test_an_invalid_flow_is_a_400_naming_the_node(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/automations/v2",
        json=v2_spec(
            [node("plan", "worker", deps=["ship"]), node("ship", "worker", deps=["plan"])]
        ),
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "AUTOMATION_V2_CREATE_FAILED" and body["node_id"] == "plan"
    assert body["field"] == "flow.nodes[0].depends_on" and body["cycle"] == ["plan", "ship", "plan"]
    unknown = await client.post(
        "/automations/v2", json={**v2_spec([node("a", "worker")]), "agents": []}
    )
    assert unknown.status_code == 400 and unknown.json()["field"] == "agents"


async def test_run_now_runs_and_lists(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    await client.post(
        "/automations/v2",
        json=v2_spec([node("a", "worker"), node("b", "worker", deps=["a"])], automation_id="flow"),
    )
    dry = (await client.post("/automations/v2/flow/run_now", json={"dry_run": True})).json()
    assert dry["dry_run"] is True and dry["run"]["status"] == "completed"
    assert dry["run"]["trigger_type"] == "manual_dry_run" and fake_model.requests == []

    started = (
        await client.post("/automations/v2/flow/run_now", json={"context": {"objective": "go"}})
    ).json()
    run_id = started["run"]["run_id"]
    assert started["ok"] is True and started["run"]["status"] == "queued"
    await settled(engine, run_id)
    run = (await client.get(f"/automations/v2/runs/{run_id}")).json()["run"]
    assert run["status"] == "completed" and run["node_outputs"] == {
        "a": "output of a",
        "b": "output of b",
    }
    assert (
        run["checkpoint"]["completed_nodes"] == ["a", "b"]
        and run["checkpoint"]["pending_nodes"] == []
    )
    assert run["checkpoint"]["node_outputs"]["b"]["content"] == "output of b"
    assert run["allowed_tools"] == ["read"] and run["runtime_context"] == {"objective": "go"}
    assert run["total_tokens"] > 0 and run["workflow_definition_snapshot_hash"].startswith(
        "sha256:"
    )

    per_automation = (await client.get("/automations/v2/flow/runs")).json()
    assert per_automation["automationID"] == "flow" and per_automation["count"] == 2
    assert per_automation["runs"][0]["run_id"] == run_id
    everything = (
        await client.get("/automations/v2/runs", params={"automation_id": "flow", "limit": 1})
    ).json()
    assert everything["count"] == 1
    assert (await client.get("/automations/v2/runs/nope")).status_code == 404
    assert (await client.post("/automations/v2/ghost/run_now", json={})).status_code == 404


async def test_cancel_route(client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any) -> None:
    hold = trio.Event()
    fake_model.default = lambda request: Turn.reply("x", gate=hold)
    await client.post("/automations/v2", json=v2_spec([node("a", "worker")], automation_id="flow"))
    run_id = (await client.post("/automations/v2/flow/run_now", json={})).json()["run"]["run_id"]
    await fake_model.wait_for_requests(1)
    cancelled = (
        await client.post(f"/automations/v2/runs/{run_id}/cancel", json={"reason": "stop"})
    ).json()
    assert cancelled["ok"] is True and cancelled["run"]["status"] == "cancelled"
    again = (await client.post(f"/automations/v2/runs/{run_id}/cancel", json={})).json()
    assert again["ok"] is False
    hold.set()


async def test_gate_decisions_are_for_humans(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    await client.post(
        "/automations/v2",
        json=v2_spec(
            [
                node("draft", "worker"),
                node(
                    "review",
                    "worker",
                    "review it",
                    deps=["draft"],
                    gate={
                        "required": True,
                        "decisions": ["approve", "rework"],
                        "instructions": "Check tone",
                    },
                ),
                node("publish", "worker", deps=["review"]),
            ],
            automation_id="gated",
        ),
    )
    run_id = (await client.post("/automations/v2/gated/run_now", json={})).json()["run"]["run_id"]
    first = await wait_for_event(engine, "approval.required", run_id=run_id)
    waiting = (await client.get(f"/automations/v2/runs/{run_id}")).json()["run"]
    assert waiting["status"] == "awaiting_approval"
    assert waiting["checkpoint"]["awaiting_gate"]["instructions"] == "Check tone"

    by_agent = await client.post(
        f"/automations/v2/runs/{run_id}/gate",
        json={"decision": "approve"},
        headers={"x-svc-agent-id": "sneaky"},
    )
    assert (
        by_agent.status_code == 403
        and by_agent.json()["code"] == "AUTOMATION_V2_GATE_REQUIRES_HUMAN"
    )
    not_offered = await client.post(
        f"/automations/v2/runs/{run_id}/gate", json={"decision": "cancel"}
    )
    assert not_offered.status_code == 400

    rework = await client.post(
        f"/automations/v2/runs/{run_id}/gate", json={"decision": "rework", "reason": "warmer tone"}
    )
    history = rework.json()["run"]["checkpoint"]["gate_history"]
    assert history[0]["decision"] == "rework" and history[0]["reset_nodes"] == [
        "draft",
        "publish",
        "review",
    ]
    # The draft runs again, told why, and the gate asks again.
    await wait_for_event(engine, "approval.required", run_id=run_id, after_seq=first.seq)
    assert "Rework requested by the reviewer: warmer tone" in user_prompt(fake_model.requests[1])
    approved = await client.post(
        f"/automations/v2/runs/{run_id}/gate", json={"decision": "approve"}
    )
    assert approved.status_code == 200
    done = await settled(engine, run_id)
    assert done.status == "completed" and [step_of(r) for r in fake_model.requests] == [
        "draft",
        "draft",
        "publish",
    ]
    late = await client.post(f"/automations/v2/runs/{run_id}/gate", json={"decision": "approve"})
    assert (
        late.status_code == 409 and late.json()["code"] == "AUTOMATION_V2_RUN_NOT_AWAITING_APPROVAL"
    )
    assert late.json()["winningDecision"] == "approve"


async def test_nodes_use_write_tools_unattended(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("write", {"path": "out/report.md", "content": "done"}, id="w")),
        Turn.reply("written"),
    )
    await client.post(
        "/automations/v2",
        json=v2_spec(
            [node("w", "writer")], agents=[agent("writer", allow=["write"])], automation_id="writes"
        ),
    )
    run_id = (await client.post("/automations/v2/writes/run_now", json={})).json()["run"]["run_id"]
    assert (await settled(engine, run_id)).status == "completed"
    assert (workspace / "out" / "report.md").read_text() == "done"
    # The pre-approval belonged to that session only.
    session_id = (await engine.automations.get_v2_run(run_id)).nodes["w"].session_id
    assert engine.permissions.evaluate("write", session_id=session_id) == "ask"


async def test_the_v2_event_stream(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    await client.post(
        "/automations/v2", json=v2_spec([node("a", "worker")], automation_id="streamed")
    )
    await client.post("/automations/v2", json=v2_spec([node("a", "worker")], automation_id="other"))
    async with client.stream(
        "GET", "/automations/v2/events", params={"automation_id": "streamed"}
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")

        async def trigger() -> None:
            await engine.events.wait_for_subscribers(lambda n: n >= 1)
            await client.post("/automations/v2/other/run_now", json={})
            await client.post("/automations/v2/streamed/run_now", json={})

        async with trio.open_nursery() as nursery:
            nursery.start_soon(trigger)
            frames = await read_sse(response, 6)
    payloads = [json.loads(f["data"]) for f in frames]
    assert payloads[0]["status"] == "ready" and payloads[0]["stream"] == "automations_v2"
    kinds = [p["type"] for p in payloads[1:]]
    assert kinds[:2] == ["automation.v2.run.created", "run.started"]
    assert all(p["properties"]["automationID"] == "streamed" for p in payloads[1:])
    assert all("id" in f for f in frames[1:])


async def test_run_records_show_each_nodes_status_and_output(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    def answer(request: Any) -> Turn:
        step = step_of(request)
        return (
            Turn.failure(400, "cannot do " + str(step))
            if step == "broken"
            else Turn.reply(f"ok {step}")
        )

    fake_model.default = answer
    await client.post(
        "/automations/v2",
        json=v2_spec(
            [
                node("broken", "worker"),
                node("downstream", "worker", deps=["broken"]),
                node("independent", "worker"),
            ],
            parallel=2,
            automation_id="mixed",
        ),
    )
    run_id = (await client.post("/automations/v2/mixed/run_now", json={})).json()["run"]["run_id"]
    await settled(engine, run_id)
    run = (await client.get(f"/automations/v2/runs/{run_id}")).json()["run"]
    assert run["status"] == "failed"
    assert run["node_statuses"] == {
        "broken": "failed",
        "downstream": "skipped",
        "independent": "completed",
    }
    assert run["node_outputs"] == {"independent": "ok independent"}
    checkpoint = run["checkpoint"]
    assert checkpoint["completed_nodes"] == ["independent"]
    assert sorted(checkpoint["blocked_nodes"]) == ["broken", "downstream"]
    assert "cannot do broken" in checkpoint["node_outputs"]["broken"]["error"]
    assert checkpoint["node_outputs"]["independent"]["status"] == "completed"
    listed = (await client.get("/automations/v2/mixed/runs")).json()["runs"]
    assert listed[0]["node_statuses"] == run["node_statuses"]
