"""Goals are scoped to their tenant and mutated by their owner; live streams end with the engine."""

from __future__ import annotations

from collections.abc import Callable
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
    step_reply,
    transition,
)

ACME_ALICE = {"x-svc-org-id": "acme", "x-svc-workspace-id": "w1", "x-svc-actor-id": "alice"}
ACME_BOB = {**ACME_ALICE, "x-svc-actor-id": "bob"}


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings], fake_model: Any) -> svc.Settings:
    return make_settings(
        default_provider="openai",
        goals_trust_tenant_headers=True,
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )


async def test_goals_are_tenant_scoped_and_owner_checked(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    await publish(client, linear_spec())
    # acme has no published orchestration of that id: the local one is invisible to it.
    refused = await client.post(
        "/goals",
        headers=ACME_ALICE,
        json={"orchestration_id": "release-loop", "objective": "x", "idempotency_key": "k"},
    )
    assert refused.status_code == 404
    started = await client.post(
        "/goals",
        json={"orchestration_id": "release-loop", "objective": "local", "idempotency_key": "k"},
    )
    goal_id = started.json()["goal"]["goal_id"]
    assert (await client.get(f"/goals/{goal_id}", headers=ACME_ALICE)).status_code == 404
    assert (await client.get("/goals", headers=ACME_ALICE)).json()["count"] == 0
    assert (await client.post(f"/goals/{goal_id}/cancel", headers=ACME_ALICE)).status_code == 404
    await run_settled(engine, started.json()["root_run_id"])

    # A verified principal of the local tenant that did not start the goal may not move it.
    local_bob = {"x-svc-actor-id": "bob"}
    forbidden = await transition(client, goal_id, "t1", "planned", PLAN, **local_bob)
    assert forbidden.status_code == 403 and forbidden.json()["code"] == "goal_forbidden"
    assert (await client.post(f"/goals/{goal_id}/pause", headers=local_bob)).status_code == 403
    no_authority = await client.post(
        f"/goals/{goal_id}/waits/wait-x/resolve",
        headers=local_bob,
        json={"idempotency_key": "r", "payload": None},
    )
    assert no_authority.status_code == 403
    projection = (await client.get(f"/goals/{goal_id}/projection", headers=local_bob)).json()
    assert {a["id"]: a["disabled_reason"] for a in projection["actions"]}[
        "pause"
    ] == "not_authorized"
    admin = {**local_bob, "x-svc-actor-roles": "admin"}
    assert (await transition(client, goal_id, "t1", "planned", PLAN, **admin)).status_code == 200


async def test_goals_started_by_a_verified_actor_belong_to_it(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    created = await client.post("/orchestrations", json=linear_spec(), headers=ACME_ALICE)
    assert created.status_code == 201
    token = created.json()["updated_at_ms"]
    # acme's draft names automations of the local tenant: they are missing for acme.
    refs = (
        await client.get("/orchestrations/release-loop/stale-references", headers=ACME_ALICE)
    ).json()
    assert {r["state"] for r in refs["references"]} == {"missing"}
    refreshed = await client.post(
        "/orchestrations/release-loop/refresh-references",
        headers=ACME_ALICE,
        json={"expected_updated_at_ms": token},
    )
    assert refreshed.json()["refreshed_node_ids"] == []
    assert (
        await client.post("/orchestrations/release-loop/publish", headers=ACME_ALICE)
    ).status_code == 422


async def test_live_goal_streams_end_with_the_engine(
    settings: svc.Settings, fake_model: Any
) -> None:
    fake_model.default = step_reply
    ended = trio.Event()
    chunks: list[str] = []

    async def follow(
        url: str, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        # Its own client, closed with the stream: an idle keep-alive connection would hold up
        # the server's graceful stop on its own.
        async with httpx.AsyncClient(timeout=30.0) as client, client.stream("GET", url) as response:
            task_status.started()
            async for chunk in response.aiter_text():
                chunks.append(chunk)
        ended.set()  # a clean end of the body: the server finished the stream itself

    async with trio.open_nursery() as outer:
        async with svc.open_engine(settings, serve_http=True) as engine:
            await create_workflows(engine, "wf-plan", "wf-build")
            base = engine.url or ""
            async with httpx.AsyncClient(base_url=base, timeout=30.0) as local:
                await publish(local, linear_spec())
                started = await local.post(
                    "/goals",
                    json={
                        "orchestration_id": "release-loop",
                        "objective": "o",
                        "idempotency_key": "k",
                    },
                )
            goal_id = started.json()["goal"]["goal_id"]
            await run_settled(engine, started.json()["root_run_id"])
            await outer.start(follow, f"{base}/goals/{goal_id}/events/stream")
        # Leaving the engine ended the stream cleanly (a forced close would raise in follow())
        # before the HTTP server finished stopping.
        assert ended.is_set()
    assert chunks[0].startswith("event: ready")
