"""Goals over HTTP: start and replay, transitions in the kernel's check order, approvals,
completion,
pause/resume/cancel, limits, and pinning to the published version."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

import svc
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import (
    BUILD_REPORT,
    PLAN,
    REPORT,
    create_workflows,
    publish,
    run_settled,
    start_goal,
    step_reply,
    transition,
)


@pytest.fixture
async def ready(engine: svc.Engine, client: httpx.AsyncClient, fake_model: Any) -> None:
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build", "wf-review")


async def started_goal(
    engine: svc.Engine, client: httpx.AsyncClient, **spec: Any
) -> dict[str, Any]:
    await publish(client, linear_spec(**spec))
    started = await start_goal(client)
    await run_settled(engine, started["root_run_id"])
    return started


async def test_start_is_idempotent_and_the_root_run_is_hop_zero(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None
) -> None:
    await publish(client, linear_spec())
    response = await client.post(
        "/goals",
        json={
            "orchestration_id": "release-loop",
            "objective": "ship",
            "idempotency_key": "k",
            "metadata": {"release": "1.4"},
        },
    )
    assert response.status_code == 201
    first = response.json()
    goal = first["goal"]
    assert first["replayed"] is False and goal["goal_id"].startswith("goal-")
    assert (goal["status"], goal["current_node_id"], goal["hop_count"]) == ("active", "plan", 0)
    assert goal["active_run_id"] == first["root_run_id"]
    assert goal["metadata"]["release"] == "1.4"
    assert goal["metadata"]["started_by"] == {"kind": "human_user", "id": "local-operator"}
    assert goal["metadata"]["orchestration_snapshot"]["version"] == 1
    again = await client.post(
        "/goals",
        json={"orchestration_id": "release-loop", "objective": "other", "idempotency_key": "k"},
    )
    assert again.status_code == 200
    assert again.json()["replayed"] is True
    assert again.json()["goal"]["goal_id"] == goal["goal_id"]
    assert again.json()["root_run_id"] == first["root_run_id"]
    runs = (await client.get(f"/goals/{goal['goal_id']}/runs")).json()
    assert runs["count"] == 1 and runs["active_run_id"] == first["root_run_id"]
    link = runs["runs"][0]["link"]
    assert (link["hop_index"], link["orchestration_node_id"], link["parent_run_id"]) == (
        0,
        "plan",
        None,
    )
    run = await run_settled(engine, first["root_run_id"])
    assert run.trigger_type == "orchestration_goal_start"
    assert run.context["objective"] == "ship" and run.context["goal_id"] == goal["goal_id"]

    await publish_again(client)
    pinned_key = await client.post(
        "/goals",
        json={
            "orchestration_id": "release-loop",
            "objective": "ship",
            "idempotency_key": "k",
            "orchestration_version": 2,
        },
    )
    assert pinned_key.status_code == 409 and pinned_key.json()["code"] == "goal_state_conflict"


async def publish_again(client: httpx.AsyncClient) -> int:
    published = await client.post("/orchestrations/release-loop/publish")
    assert published.status_code == 201, published.text
    return int(published.json()["version"])


async def test_start_refuses_what_cannot_run(client: httpx.AsyncClient, ready: None) -> None:
    created = await client.post("/orchestrations", json=linear_spec())
    assert created.status_code == 201
    unpublished = await client.post(
        "/goals",
        json={"orchestration_id": "release-loop", "objective": "x", "idempotency_key": "k"},
    )
    assert unpublished.status_code == 400
    assert unpublished.json()["detail"] == "orchestration has no published version"
    unknown = await client.post(
        "/goals", json={"orchestration_id": "nope", "objective": "x", "idempotency_key": "k"}
    )
    assert unknown.status_code == 404 and unknown.json()["code"] == "orchestration_not_found"
    for body, field in (
        ({"objective": "x", "idempotency_key": "k"}, "orchestration_id"),
        (
            {"orchestration_id": "release-loop", "objective": " ", "idempotency_key": "k"},
            "objective",
        ),
        (
            {"orchestration_id": "release-loop", "objective": "x", "idempotency_key": "k" * 300},
            "idempotency_key",
        ),
        (
            {
                "orchestration_id": "release-loop",
                "objective": "x",
                "idempotency_key": "k",
                "metadata": {"blob": "x" * 20_000},
            },
            "metadata",
        ),
    ):
        response = await client.post("/goals", json=body)
        assert response.status_code == 400, body
        assert response.json()["field"] == field


async def test_transition_checks_run_in_order(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None, workspace: Path
) -> None:
    started = await started_goal(engine, client)
    goal_id = started["goal"]["goal_id"]
    unknown_key = await transition(client, goal_id, "t0", "shipped", PLAN)
    assert unknown_key.status_code == 400
    assert (unknown_key.json()["code"], unknown_key.json()["check"]) == (
        "invalid_goal_request",
        "transition_key",
    )
    wrong_type = await transition(
        client, goal_id, "t0", "planned", {"artifact_type": "memo", "value": "x"}
    )
    assert wrong_type.status_code == 400 and wrong_type.json()["check"] == "artifact_contract"
    empty = await transition(client, goal_id, "t0", "planned", {"artifact_type": "plan"})
    assert empty.status_code == 400 and empty.json()["check"] == "artifact_contract"
    missing_file = await transition(
        client,
        goal_id,
        "t0",
        "planned",
        {"artifact_type": "plan", "content_path": "plan.md", "content_digest": "a" * 64},
    )
    assert (
        missing_file.status_code == 422
        and missing_file.json()["code"] == "artifact_policy_violation"
    )

    (workspace / "plan.md").write_text("1. build\n2. test\n")
    digest = hashlib.sha256((workspace / "plan.md").read_bytes()).hexdigest()
    artifact = {
        "artifact_type": "plan",
        "content_path": "plan.md",
        "content_digest": "sha256:" + digest,
    }
    moved = await transition(client, goal_id, "t1", "planned", artifact)
    assert moved.status_code == 200, moved.text
    body = moved.json()
    assert (body["outcome"], body["commit"]) == ("committed", "Committed")
    assert body["handoff"]["status"] == "consumed"
    assert body["handoff"]["consumed_by_run_id"] == body["downstream_run_id"]
    assert (
        body["link"]["hop_index"] == 1 and body["link"]["parent_run_id"] == started["root_run_id"]
    )
    assert (body["goal"]["current_node_id"], body["goal"]["hop_count"]) == ("build", 1)
    assert body["goal"]["total_tokens"] > 0  # the source run's usage is charged at the handoff

    replay = await transition(client, goal_id, "t1", "planned", artifact)
    assert replay.status_code == 200 and replay.json()["commit"] == "AlreadyCommitted"
    assert replay.json()["downstream_run_id"] == body["downstream_run_id"]
    rebound = await transition(client, goal_id, "t1", "planned", PLAN)
    assert rebound.status_code == 400 and rebound.json()["field"] == "idempotency_key"

    # The downstream run has not finished: the goal cannot leave the build node yet.
    run = await engine.automations.get_v2_run(body["downstream_run_id"])
    assert run.context["input_artifact"] == artifact and run.trigger_type == "orchestration_handoff"
    await run_settled(engine, body["downstream_run_id"])
    terminal_edge = await transition(client, goal_id, "t2", "done", REPORT)
    assert terminal_edge.status_code == 400 and terminal_edge.json()["check"] == "transition_key"
    assert "completion" in terminal_edge.json()["detail"]


async def test_a_handoff_waits_for_an_unfinished_source_run(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.default = lambda request: Turn.reply("slow", gate=gate)
    await publish(client, linear_spec())
    started = await start_goal(client)
    early = await transition(client, started["goal"]["goal_id"], "t1", "planned", PLAN)
    assert early.status_code == 409
    assert (early.json()["code"], early.json()["check"]) == ("goal_state_conflict", "source_node")
    assert early.json()["run_status"] in ("queued", "running")
    gate.set()
    await run_settled(engine, started["root_run_id"])
    assert (
        await transition(client, started["goal"]["goal_id"], "t1", "planned", PLAN)
    ).status_code == 200


async def test_approval_gated_handoff(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None
) -> None:
    started = await started_goal(engine, client, approval_on="e1")
    goal_id = started["goal"]["goal_id"]
    pending = await transition(client, goal_id, "t1", "planned", PLAN)
    assert pending.status_code == 202
    handoff = pending.json()["handoff"]
    assert (
        pending.json()["outcome"] == "pending_approval" and handoff["status"] == "pending_approval"
    )
    assert pending.json()["goal"]["status"] == "waiting"
    again = await transition(client, goal_id, "t1", "planned", PLAN)
    assert (
        again.status_code == 202 and again.json()["handoff"]["handoff_id"] == handoff["handoff_id"]
    )

    path = f"/goals/{goal_id}/handoffs/{handoff['handoff_id']}/decision"
    agent = await client.post(
        path, json={"decision": "approve"}, headers={"x-svc-agent-id": "planner"}
    )
    assert agent.status_code == 403 and agent.json()["code"] == "goal_forbidden"
    bad = await client.post(path, json={"decision": "maybe"})
    assert bad.status_code == 400
    assert (
        await client.post(
            f"/goals/{goal_id}/handoffs/handoff-nope/decision", json={"decision": "approve"}
        )
    ).status_code == 404
    decided = await client.post(path, json={"decision": "approve", "reason": "looks right"})
    assert decided.status_code == 200 and decided.json()["handoff"]["status"] == "approved"
    assert decided.json()["handoff"]["metadata"]["decision_actor"]["id"] == "local-operator"
    same = await client.post(path, json={"decision": "approve"})
    assert same.status_code == 200  # deciding to the status it has is idempotent
    assert (await client.post(path, json={"decision": "reject"})).status_code == 400

    committed = await transition(client, goal_id, "t1", "planned", PLAN)
    assert committed.status_code == 200 and committed.json()["commit"] == "Committed"
    assert committed.json()["goal"]["status"] == "active"
    handoffs = (await client.get(f"/goals/{goal_id}/handoffs")).json()
    assert [h["status"] for h in handoffs["handoffs"]] == ["consumed"]


async def test_a_rejected_handoff_is_no_longer_eligible(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None
) -> None:
    started = await started_goal(engine, client, approval_on="e1")
    goal_id = started["goal"]["goal_id"]
    handoff = (await transition(client, goal_id, "t1", "planned", PLAN)).json()["handoff"]
    await client.post(
        f"/goals/{goal_id}/handoffs/{handoff['handoff_id']}/decision",
        json={"decision": "reject", "reason": "plan is incomplete"},
    )
    rejected = await transition(client, goal_id, "t1", "planned", PLAN)
    assert rejected.status_code == 409 and rejected.json()["code"] == "goal_state_conflict"
    # A fresh key proposes a new handoff from the same node.
    fresh = await transition(
        client, goal_id, "t2", "planned", {**PLAN, "value": {"steps": ["all"]}}
    )
    assert fresh.status_code == 202


async def test_completion_settles_the_goal(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None
) -> None:
    started = await started_goal(engine, client)
    goal_id = started["goal"]["goal_id"]
    moved = (await transition(client, goal_id, "t1", "planned", PLAN)).json()
    await run_settled(engine, moved["downstream_run_id"])
    no_artifact = await client.post(f"/goals/{goal_id}/completion", json={"transition_key": "done"})
    assert no_artifact.status_code == 400 and no_artifact.json()["check"] == "artifact_contract"
    waiting = await client.post(f"/goals/{goal_id}/completion", json={})
    assert waiting.status_code == 200 and waiting.json()["outcome"] == "awaiting_transition"
    assert waiting.json()["goal"]["status"] == "waiting"
    charged = waiting.json()["goal"]["total_tokens"]
    done = await client.post(
        f"/goals/{goal_id}/completion", json={"transition_key": "done", "final_artifact": REPORT}
    )
    assert done.status_code == 200, done.text
    goal = done.json()["goal"]
    assert done.json()["outcome"] == "terminal"
    assert (goal["status"], goal["current_node_id"], goal["final_artifact"]) == (
        "completed",
        "finish",
        REPORT,
    )
    assert "active_run_id" not in goal and goal["finished_at_ms"] is not None
    assert goal["total_tokens"] == charged  # a run is charged once
    assert goal["hop_count"] == 1  # completion consumes no hop
    after = await transition(client, goal_id, "t9", "done", REPORT)
    assert after.status_code == 409 and after.json()["code"] == "goal_terminal"
    view = (await client.get(f"/goals/{goal_id}")).json()
    assert view["status"] == "completed" and view["budgets"]["consumed"]["hops"] == 1
    artifacts = (await client.get(f"/goals/{goal_id}/artifacts")).json()
    assert artifacts["final_artifact"] == REPORT and artifacts["artifacts"][0]["artifact"] == PLAN


async def test_pause_resume_and_cancel(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None
) -> None:
    started = await started_goal(engine, client, approval_on="e1")
    goal_id = started["goal"]["goal_id"]
    pending = (await transition(client, goal_id, "t1", "planned", PLAN)).json()["handoff"]
    paused = (await client.post(f"/goals/{goal_id}/pause", json={"reason": "freeze"})).json()
    assert paused["outcome"] == "paused" and paused["goal"]["status"] == "paused"
    assert (await client.post(f"/goals/{goal_id}/pause")).json()["outcome"] == "already_paused"
    blocked = await transition(client, goal_id, "t2", "planned", PLAN)
    assert blocked.status_code == 409 and blocked.json()["code"] == "goal_state_conflict"
    resumed = (await client.post(f"/goals/{goal_id}/resume")).json()
    assert resumed["outcome"] == "resumed" and resumed["goal"]["status"] == "active"
    assert (await client.post(f"/goals/{goal_id}/resume")).json()["outcome"] == "not_paused"

    cancelled = await client.post(f"/goals/{goal_id}/cancel", json={"reason": "scope cut"})
    assert cancelled.status_code == 200
    result = cancelled.json()
    assert result["outcome"] == "Applied" and result["goal"]["status"] == "cancelled"
    assert result["dead_lettered_handoff_ids"] == [pending["handoff_id"]]
    assert result["cancelled_run_id"] is None  # the root run had already completed
    again = (await client.post(f"/goals/{goal_id}/cancel")).json()
    assert again["outcome"] == "AlreadyTerminal"
    assert (await client.post(f"/goals/{goal_id}/pause")).status_code == 409
    assert (await client.get(f"/goals/{goal_id}/handoffs")).json()["handoffs"][0][
        "status"
    ] == "dead_lettered"
    listed = (await client.get("/goals", params={"status": "cancelled"})).json()
    assert [g["goal_id"] for g in listed["goals"]] == [goal_id]


async def test_cancel_stops_the_active_run(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.default = lambda request: Turn.reply("slow words here", gate=gate, gate_after=1)
    await publish(client, linear_spec())
    started = await start_goal(client)
    goal_id = started["goal"]["goal_id"]
    # Cancel mid-stream: the root run's node is answering.
    await wait_for_event(
        engine, "message.part.updated", where=lambda e: e.properties.get("delta") == "slow "
    )
    cancelled = (await client.post(f"/goals/{goal_id}/cancel")).json()
    assert cancelled["cancelled_run_id"] == started["root_run_id"]
    await wait_for_event(engine, "run.cancelled", run_id=started["root_run_id"])
    gate.set()
    run = await engine.automations.get_v2_run(started["root_run_id"])
    assert run.status == "cancelled"


@pytest.mark.parametrize(
    ("on_limit", "status"), [("pause_for_review", "paused"), ("fail", "failed")]
)
async def test_hop_limit_applies_the_goal_policy(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None, on_limit: str, status: str
) -> None:
    started = await started_goal(
        engine, client, review="wf-review", goal_policy={"max_hops": 1, "on_limit": on_limit}
    )
    goal_id = started["goal"]["goal_id"]
    first = (await transition(client, goal_id, "t1", "planned", PLAN)).json()
    await run_settled(engine, first["downstream_run_id"])
    refused = await transition(client, goal_id, "t2", "built", BUILD_REPORT)
    assert refused.status_code == 400
    assert (refused.json()["check"], refused.json()["limit"]) == ("limits", "hop_limit")
    goal = (await client.get(f"/goals/{goal_id}")).json()
    assert goal["status"] == status and goal["budgets"]["remaining"]["hops"] == 0
    events = (await client.get(f"/goals/{goal_id}/events")).json()["events"]
    limit_event = next(
        e["event"] for e in events if e["event"]["event_type"].endswith("limit_reached")
    )
    assert (
        limit_event["payload"]["limit"] == "hop_limit"
        and limit_event["payload"]["status"] == status
    )


async def test_token_limit_counts_the_source_runs_usage(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None
) -> None:
    started = await started_goal(engine, client, goal_policy={"max_total_tokens": 1})
    refused = await transition(client, started["goal"]["goal_id"], "t1", "planned", PLAN)
    assert refused.status_code == 400 and refused.json()["limit"] == "token_limit"
    assert refused.json()["goal_status"] == "paused"


async def test_a_running_goal_stays_on_its_version(
    client: httpx.AsyncClient, engine: svc.Engine, ready: None
) -> None:
    old = await started_goal(engine, client)
    goal_id = old["goal"]["goal_id"]
    # Version 2 renames the transition and the automation changes after the first publication.
    draft = (await client.get("/orchestrations/release-loop")).json()["draft"]
    body = linear_spec()
    body["nodes"][0]["allowed_transition_keys"] = ["ready"]
    body["edges"][0]["transition_key"] = "ready"
    updated = (
        await client.put(
            "/orchestrations/release-loop",
            json={**body, "expected_updated_at_ms": draft["updated_at_ms"]},
        )
    ).json()
    await engine.automations.v2.patch("wf-build", {"description": "version two of build"})
    refreshed = (
        await client.post(
            "/orchestrations/release-loop/refresh-references",
            json={"expected_updated_at_ms": updated["updated_at_ms"]},
        )
    ).json()
    assert refreshed["refreshed_node_ids"] == ["plan", "build"]
    assert await publish_again(client) == 2

    assert (await transition(client, goal_id, "t1", "ready", PLAN)).status_code == 400
    moved = await transition(client, goal_id, "t1", "planned", PLAN)
    assert moved.status_code == 200, moved.text
    assert moved.json()["goal"]["orchestration_version"] == 1
    run = await engine.automations.get_v2_run(moved.json()["downstream_run_id"])
    v1_hash = old["goal"]["metadata"]["orchestration_snapshot"]["nodes"][1][
        "pinned_definition_hash"
    ]
    assert run.definition_hash == v1_hash  # the run executes the definition version 1 pinned
    assert "description" not in run.snapshot

    new = await start_goal(client, key="goal-2")
    assert new["goal"]["orchestration_version"] == 2
    await run_settled(engine, new["root_run_id"])
    assert (
        await transition(client, new["goal"]["goal_id"], "t1", "ready", PLAN)
    ).status_code == 200
