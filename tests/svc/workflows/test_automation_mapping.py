"""Workflows that map to an automation v2, and saved studio workflows at start-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from svc.workflows import WorkflowsComponent, migrate_stored_studio_workflows
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event

SPEC = {
    "name": "One node",
    "status": "active",
    "schedule": {"type": "manual", "timezone": "UTC", "misfire_policy": {"type": "run_once"}},
    "agents": [
        {
            "agent_id": "worker",
            "display_name": "Worker",
            "tool_policy": {"allowlist": ["read"]},
            "mcp_policy": {"allowed_servers": []},
        }
    ],
    "flow": {"nodes": [{"node_id": "answer", "agent_id": "worker", "objective": "Say hello"}]},
}


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def test_running_a_mapped_workflow_runs_its_automation(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    automation = await engine.automations.create_v2(SPEC)
    path = workspace / ".svc" / "workflows" / "mapped.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(f"workflow:\n  id: mapped\n  automation_id: {automation.automation_id}\n")
    fake_model.enqueue(Turn.reply("hello from the automation"))

    run = (await client.post("/workflows/mapped/run", json={})).json()["run"]
    assert run["automation_id"] == automation.automation_id
    assert run["actions"][0]["action"] == f"automation:{automation.automation_id}"
    await wait_for_event(engine, "workflow.run.completed", run_id=run["run_id"])
    done = (await client.get(f"/workflows/runs/{run['run_id']}")).json()["run"]
    output = done["actions"][0]["output"]
    assert output["status"] == "completed" and output["nodeOutputs"] == {
        "answer": "hello from the automation"
    }
    assert done["automation_run_id"] == output["automationRunID"]
    automation_run = await engine.automations.get_v2_run(output["automationRunID"])
    assert automation_run.trigger_type == "workflow"


async def test_a_failing_automation_fails_the_workflow_run(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    path = workspace / ".svc" / "workflows" / "mapped.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("workflow:\n  id: mapped\n  automation_id: no-such-automation\n")
    run_id = (await client.post("/workflows/mapped/run", json={})).json()["run"]["run_id"]
    failed = await wait_for_event(engine, "workflow.run.failed", run_id=run_id)
    assert "AUTOMATION_V2_NOT_FOUND" in failed.properties["error"]


STUDIO = {
    **SPEC,
    "status": "draft",
    "flow": {
        "nodes": [
            {
                "node_id": "research",
                "agent_id": "worker",
                "objective": "Research the market.",
                "metadata": {"studio": {"research": True}},
            }
        ]
    },
    "metadata": {"studio": {"version": 1, "node_layout": {"research": [0, 0]}}},
}
MIGRATED_NODES = [
    "research-discover",
    "research-local-sources",
    "research-external-research",
    "research",
]


async def test_a_studio_workflow_saved_at_version_1_is_migrated(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    created = await client.post("/automations/v2", json=STUDIO)
    assert created.status_code == 200, created.text
    automation_id = created.json()["automation"]["automation_id"]
    migrated = await wait_for_event(
        engine,
        "workflow.studio.migrated",
        where=lambda e: e.properties["automationID"] == automation_id,
    )
    assert migrated.topic == "workflows" and migrated.properties["fromVersion"] == 1
    assert migrated.properties["toVersion"] == 2 and migrated.properties["addedNodeCount"] == 3
    stored = (await client.get(f"/automations/v2/{automation_id}")).json()["automation"]
    assert stored["metadata"]["studio"]["workflow_structure_version"] == 2
    assert [n["node_id"] for n in stored["flow"]["nodes"]] == MIGRATED_NODES

    # Saving it again at version 1 (an older studio) migrates it again; a version 2 save is left
    # alone.
    patched = await client.patch(
        f"/automations/v2/{automation_id}",
        json={"metadata": STUDIO["metadata"], "flow": STUDIO["flow"]},
    )
    assert patched.status_code == 200, patched.text
    await wait_for_event(
        engine,
        "workflow.studio.migrated",
        after_seq=migrated.seq,
        where=lambda e: e.properties["automationID"] == automation_id,
    )
    assert await migrate_stored_studio_workflows(engine) == 0


async def test_saved_studio_workflows_are_migrated_at_start(make_settings: Any) -> None:
    settings = make_settings()
    # An engine without the workflows domain stands for an older release that saved a version 1
    # workflow.
    older = [c for c in svc.component.default_components() if not isinstance(c, WorkflowsComponent)]
    async with svc.open_engine(settings, components=older) as engine:
        automation_id = (await engine.automations.create_v2(STUDIO)).automation_id
        assert (await engine.automations.get_v2(automation_id)).spec["metadata"]["studio"][
            "version"
        ] == 1
    async with svc.open_engine(settings) as engine:
        await wait_for_event(
            engine,
            "workflow.studio.migrated",
            where=lambda e: e.properties["automationID"] == automation_id,
        )
        stored = await engine.automations.get_v2(automation_id)
        assert stored.spec["metadata"]["studio"]["workflow_structure_version"] == 2
        assert [n["node_id"] for n in stored.spec["flow"]["nodes"]] == MIGRATED_NODES
