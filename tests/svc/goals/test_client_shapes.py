"""Goal and orchestration replies in the shapes clients validate strictly: the reference's
refresh-references reply (no extra keys) and goal run records with the run's own fields."""

from __future__ import annotations

from typing import Any

import httpx

import svc
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import create_workflows, run_settled, start_goal, step_reply


async def test_refresh_references_answers_exactly_the_reference_shape(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await create_workflows(engine, "wf-plan", "wf-build")
    created = (await client.post("/orchestrations", json=linear_spec())).json()
    refreshed = await client.post(
        "/orchestrations/release-loop/refresh-references",
        json={"expected_updated_at_ms": created["updated_at_ms"]},
    )
    body = refreshed.json()
    assert set(body) == {"orchestration", "refreshed_node_ids"}
    assert body["refreshed_node_ids"] == ["plan", "build"]
    # The new revision token is the draft's own updated_at_ms.
    published = await client.post(
        "/orchestrations/release-loop/publish",
        json={"expected_updated_at_ms": body["orchestration"]["updated_at_ms"]},
    )
    assert published.status_code == 201, published.text


async def test_goal_run_records_carry_the_runs_own_fields(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    created = (await client.post("/orchestrations", json=linear_spec())).json()
    refreshed = (
        await client.post(
            "/orchestrations/release-loop/refresh-references",
            json={"expected_updated_at_ms": created["updated_at_ms"]},
        )
    ).json()
    await client.post(
        "/orchestrations/release-loop/publish",
        json={"expected_updated_at_ms": refreshed["orchestration"]["updated_at_ms"]},
    )
    started = await start_goal(client)
    await run_settled(engine, started["root_run_id"])
    runs = (await client.get(f"/goals/{started['goal']['goal_id']}/runs")).json()
    run = runs["runs"][0]["run"]
    assert run["tenant_context"] == {
        "org_id": "local",
        "workspace_id": "local",
        "source": "local_implicit",
    }
    assert run["trigger_type"] == "orchestration_goal_start"
    assert run["created_at_ms"] > 0 and run["updated_at_ms"] >= run["created_at_ms"]
    assert run["status"] == "completed" and run["checkpoint"]["completed_nodes"]
