"""Workflow steps an agent performs: real session runs against the scripted model server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

import svc
from svc.workflows import workflows_of
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event

AGENT_FLOW = """
workflow:
  id: brief
  steps:
    - id: facts
      action: resource:put:facts
      with: {topic: release}
    - id: write_brief
      action: agent:writer
      with:
        prompt: Write a one-line release brief.
        tools: [read]
    - id: triage
      action: classifier.run
      with: {labels: [bug, feature]}
"""


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


def write_workflow(workspace: Path, text: str) -> None:
    path = workspace / ".svc" / "workflows" / "flow.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


async def test_agent_and_capability_steps_run_as_session_runs(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path, fake_model: Any
) -> None:
    write_workflow(workspace, AGENT_FLOW)
    fake_model.enqueue(Turn.reply("Release 1.2 ships faster search."), Turn.reply("label: feature"))
    run_id = (await client.post("/workflows/brief/run", json={})).json()["run"]["run_id"]
    await wait_for_event(engine, "workflow.run.completed", run_id=run_id)
    run = (await client.get(f"/workflows/runs/{run_id}")).json()["run"]
    brief, triage = run["actions"][1]["output"], run["actions"][2]["output"]
    assert brief["agentID"] == "writer" and brief["reply"] == "Release 1.2 ships faster search."
    assert triage["agentID"] is None and triage["reply"] == "label: feature"

    first = fake_model.requests[0].body
    user = first["messages"][-1]["content"]
    assert user.startswith("Write a one-line release brief.")
    assert "facts (resource:put:facts)" in user and '"rev": 1' in user
    assert [t["function"]["name"] for t in first["tools"]] == ["read"]
    second = fake_model.requests[1].body["messages"][-1]["content"]
    assert second.startswith(
        'Execute workflow action `classifier.run` with payload {"labels": ["bug", "feature"]}.'
    )

    session = (await client.get(f"/session/{brief['sessionID']}")).json()
    assert session["title"] == "Workflow brief / write_brief"


async def test_a_failed_agent_run_fails_the_step(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path, fake_model: Any
) -> None:
    write_workflow(workspace, AGENT_FLOW)
    fake_model.enqueue(Turn.failure(400))
    run_id = (await client.post("/workflows/brief/run", json={})).json()["run"]["run_id"]
    failed = await wait_for_event(engine, "workflow.run.failed", run_id=run_id)
    assert (
        failed.properties["actionID"] == "write_brief"
        and "the agent run ended error" in failed.properties["error"]
    )


async def test_cancelling_a_run_cancels_its_agent_session_run(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path, fake_model: Any
) -> None:
    write_workflow(workspace, AGENT_FLOW)
    hold = trio.Event()
    fake_model.enqueue(Turn(chunks=["partial ", "brief"], gate=hold, gate_after=1))
    run_id = (await client.post("/workflows/brief/run", json={})).json()["run"]["run_id"]
    started = await wait_for_event(
        engine,
        "workflow.action.started",
        run_id=run_id,
        where=lambda e: e.properties["actionID"] == "write_brief",
    )
    await fake_model.wait_for_requests(1)
    cancelled = await client.post(
        f"/workflows/runs/{run_id}/cancel", json={"reason": "changed my mind"}
    )
    hold.set()
    assert cancelled.status_code == 200
    run = cancelled.json()["run"]
    assert run["status"] == "cancelled" and [a["status"] for a in run["actions"]] == [
        "completed",
        "skipped",
        "skipped",
    ]
    finished = await wait_for_event(engine, "session.run.finished", after_seq=started.seq)
    assert finished.properties["status"] == "cancelled"
    again = await client.post(f"/workflows/runs/{run_id}/cancel", json={})
    assert again.status_code == 409 and again.json()["code"] == "WORKFLOW_RUN_NOT_ACTIVE"
    await workflows_of(engine).runner.wait_idle()
