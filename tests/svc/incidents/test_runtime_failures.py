"""Real failing runs reach the monitor through its runtime follower (the event log).

An automation v2 run and a routine run whose model call fails, and a workflow run whose
tool fails, each publish their failure event; the monitor turns them into drafts and
incidents when enabled, de-duplicated by fingerprint, and ignores them when disabled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

import svc
from svc import Settings
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event

from .support import configure

BAD_WORKFLOW = (
    "workflow:\n  id: nightly\n  steps:\n    - id: load\n      action: tool:read\n"
    "      with: {path: missing.txt}\n"
)
V2_SPEC = {
    "automation_id": "digest-v2",
    "name": "Digest",
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
    "flow": {"nodes": [{"node_id": "summarise", "agent_id": "worker", "objective": "Summarise"}]},
}
ROUTINE = {
    "routine_id": "sweep",
    "name": "Sweep",
    "schedule": {"interval_seconds": {"seconds": 3600}},
    "entrypoint": "mission.default",
    "args": {"prompt": "Sweep the notes"},
    "allowed_tools": ["read"],
    "output_targets": [],
}


async def taken(engine: svc.Engine, type: str, run_id: str) -> None:
    """Wait until the monitor has taken the failure event of ``run_id``."""
    event = await wait_for_event(engine, type, run_id=run_id)
    assert engine.incidents.monitor is not None
    await engine.incidents.monitor.wait_for(event.seq)


async def fail_workflow(client: httpx.AsyncClient, engine: svc.Engine) -> str:
    run_id: str = (await client.post("/workflows/nightly/run", json={})).json()["run"]["run_id"]
    await taken(engine, "workflow.run.failed", run_id)
    return run_id


async def drafts(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    return (await client.get("/incident-monitor/drafts")).json()["drafts"]  # type: ignore[no-any-return]


async def test_failing_runs_become_drafts_only_when_enabled_and_once_per_fingerprint(
    model_settings: Settings, fake_model: Any, workspace: Path
) -> None:
    (workspace / ".svc" / "workflows").mkdir(parents=True)
    (workspace / ".svc" / "workflows" / "nightly.yaml").write_text(BAD_WORKFLOW)
    # A 400 is not retried: each model call of the runs below fails once.
    fake_model.enqueue(*[Turn.failure(400, "model refused the request")] * 8)
    async with (
        svc.open_engine(model_settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        await configure(client, enabled=False)
        await fail_workflow(client, engine)
        assert await drafts(client) == []
        assert (await client.get("/incident-monitor/incidents")).json()["incidents"] == []

        await configure(client)
        first = await fail_workflow(client, engine)
        second = await fail_workflow(client, engine)
        assert first != second
        [draft] = await drafts(client)
        assert draft["event"] == "workflow.run.failed"
        assert draft["source_kind"] == "svc_runtime"
        assert draft["occurrence_count"] == 2  # two runs, one fingerprint
        assert "tool `read` failed" in draft["detail"]

        created = await client.post("/automations/v2", json=V2_SPEC)
        assert created.status_code == 200, created.text
        v2 = await client.post("/automations/v2/digest-v2/run_now", json={})
        v2_run = v2.json()["run"]["run_id"]
        await taken(engine, "run.failed", v2_run)

        assert (await client.post("/routines", json=ROUTINE)).status_code == 200
        routine_run = (await client.post("/routines/sweep/run_now", json={})).json()["runID"]
        await taken(engine, "run.failed", routine_run)

        by_component = {d.get("title"): d for d in await drafts(client)}
        assert set(by_component) == {
            "workflow.run.failed in nightly",
            "run.failed in digest-v2",
            "run.failed in sweep",
        }
        assert all(
            d["occurrence_count"] == 1 for t, d in by_component.items() if "nightly" not in t
        )
        incidents = (await client.get("/incident-monitor/incidents")).json()["incidents"]
        assert sorted(i["occurrence_count"] for i in incidents) == [1, 1, 2]
        assert {i["draft_id"] for i in incidents} == {d["draft_id"] for d in by_component.values()}
        runs = {i["event_payload"]["run_id"] for i in incidents}
        assert {v2_run, routine_run} <= runs


async def test_a_remembered_failure_pattern_suppresses_runtime_failures(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    (workspace / ".svc" / "workflows").mkdir(parents=True)
    (workspace / ".svc" / "workflows" / "nightly.yaml").write_text(BAD_WORKFLOW)
    await configure(client, require_approval_for_new_issues=True)
    await fail_workflow(client, engine)
    [draft] = await drafts(client)
    approved = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/approve", json={})
    assert approved.json()["failure_pattern_memory"]["fingerprint"] == draft["fingerprint"]
    await fail_workflow(client, engine)
    [still] = await drafts(client)
    assert still["occurrence_count"] == 1  # the known failure made no new occurrence
    [incident] = (await client.get("/incident-monitor/incidents")).json()["incidents"]
    assert incident["status"] == "duplicate_suppressed"
    assert incident["duplicate_summary"]["best_match"]["fingerprint"] == draft["fingerprint"]
