"""Helpers for goal tests: workflows to orchestrate, publishing, waiting for runs."""

from __future__ import annotations

from typing import Any

import httpx

import svc
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event


def workflow_spec(automation_id: str, *, steps: tuple[str, ...] = ("work",)) -> dict[str, Any]:
    """An automation v2 with one agent on the default (fake) model and a chain of nodes."""
    nodes = []
    previous: str | None = None
    for step in steps:
        node_id = f"{automation_id}-{step}"
        nodes.append(
            {
                "node_id": node_id,
                "agent_id": "worker",
                "objective": f"{step} for {automation_id}",
                "depends_on": [previous] if previous else [],
            }
        )
        previous = node_id
    return {
        "automation_id": automation_id,
        "name": automation_id,
        "status": "active",
        "schedule": {"type": "manual", "timezone": "UTC", "misfire_policy": {"type": "run_once"}},
        "agents": [
            {
                "agent_id": "worker",
                "display_name": "Worker",
                "tool_policy": {"allowlist": ["read"], "denylist": []},
                "mcp_policy": {"allowed_servers": []},
            }
        ],
        "flow": {"nodes": nodes},
    }


async def create_workflows(engine: svc.Engine, *ids: str) -> None:
    for automation_id in ids:
        await engine.automations.create_v2(workflow_spec(automation_id))


def step_reply(request: Any) -> Turn:
    """The fake model answers every node with ``done: <objective>``."""
    for message in reversed(request.body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content") or ""
            for line in content.splitlines():
                if line.startswith("Objective:"):
                    return Turn.reply("done: " + line.removeprefix("Objective:").strip())
            return Turn.reply("done")
    return Turn.reply("done")


async def publish(client: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    """Create (or reuse) the draft, pin its workflows, publish; the published SpecResponse."""
    created = await client.post("/orchestrations", json=body)
    assert created.status_code == 201, created.text
    token = created.json()["updated_at_ms"]
    refreshed = await client.post(
        f"/orchestrations/{body['orchestration_id']}/refresh-references",
        json={"expected_updated_at_ms": token},
    )
    assert refreshed.status_code == 200, refreshed.text
    published = await client.post(
        f"/orchestrations/{body['orchestration_id']}/publish",
        json={"expected_updated_at_ms": refreshed.json()["orchestration"]["updated_at_ms"]},
    )
    assert published.status_code == 201, published.text
    return published.json()


async def run_settled(engine: svc.Engine, run_id: str) -> Any:
    """Wait until the goal runtime recorded the run as settled; the automation run record."""
    await wait_for_event(engine, "orchestration.goal.run_settled", run_id=run_id)
    return await engine.automations.get_v2_run(run_id)


async def start_goal(
    client: httpx.AsyncClient,
    *,
    key: str = "goal-1",
    orchestration_id: str = "release-loop",
    objective: str = "ship 1.4",
    **extra: Any,
) -> dict[str, Any]:
    response = await client.post(
        "/goals",
        json={
            "orchestration_id": orchestration_id,
            "objective": objective,
            "idempotency_key": key,
            **extra,
        },
    )
    assert response.status_code in (200, 201), response.text
    return response.json()


async def transition(
    client: httpx.AsyncClient,
    goal_id: str,
    key: str,
    transition_key: str,
    artifact: dict[str, Any] | None,
    **headers: str,
) -> httpx.Response:
    body: dict[str, Any] = {"transition_key": transition_key, "idempotency_key": key}
    if artifact is not None:
        body["artifact"] = artifact
    return await client.post(f"/goals/{goal_id}/transitions", json=body, headers=headers or None)


PLAN = {"artifact_type": "plan", "value": {"steps": ["build", "test"]}}
BUILD_REPORT = {"artifact_type": "build_report", "value": {"passed": 12}}
REPORT = {"artifact_type": "report", "value": {"summary": "shipped"}}
