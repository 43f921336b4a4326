"""The workflow routes against a real engine: definitions, hooks, runs, gates, events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
import trio
import trio.testing

import svc
from svc.workflows import RunNotAwaitingApproval, requester_from, workflows_of
from tests.helpers import read_sse, wait_for_event

DEMO = """
workflow:
  id: demo
  name: Demo
  description: Read a note, tell the team, remember it
  steps:
    - id: note
      action: tool:read
      with: {path: notes/in.txt}
    - id: tell
      action: event:team.notified
      with: {channel: eng}
    - id: remember
      action: resource:put:last-note
      with: {path: notes/in.txt}
  hooks:
    deploy.finished:
      - action: resource:patch:deploys
        with: {last: done}
"""

GATED = """
workflow:
  id: gated
  name: Gated
  steps:
    - id: draft
      action: resource:patch:draft
      with: {version: 1}
    - id: review
      action: approval:gate
      with:
        title: Review the draft
        instructions: Check it
        rework_targets: [draft]
    - id: publish
      action: event:draft.published
"""


def write_workflow(workspace: Path, name: str, text: str) -> Path:
    note = workspace / "notes" / "in.txt"
    if not note.exists():
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text("hello from a workflow")
    path = workspace / ".svc" / "workflows" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def wait_run(engine: svc.Engine, run_id: str, type: str) -> dict[str, Any]:
    event = await wait_for_event(engine, type, run_id=run_id)
    return dict(event.properties)


async def test_workflows_are_listed_with_automation_previews(
    client: httpx.AsyncClient, workspace: Path, settings: svc.Settings
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    builtin = settings.resolved_state_dir / "builtin_workflows"
    builtin.mkdir(parents=True, exist_ok=True)
    (builtin / "standup.yaml").write_text("workflow:\n  id: standup\n  steps: [planner]\n")

    body = (await client.get("/workflows")).json()
    assert body["count"] == 2 and [w["workflow_id"] for w in body["workflows"]] == [
        "demo",
        "standup",
    ]
    demo = body["workflows"][0]
    assert demo["source"]["kind"] == "workspace" and demo["steps"][0] == {
        "step_id": "note",
        "action": "tool:read",
        "with": {"path": "notes/in.txt"},
    }
    preview = body["automation_previews"]["demo"]
    assert [n["node_id"] for n in preview["flow"]["nodes"]] == ["note", "tell", "remember"]
    assert (
        preview["flow"]["nodes"][1]["depends_on"] == ["note"]
        and preview["schedule"]["type"] == "manual"
    )
    assert body["workflows"][1]["source"]["kind"] == "built_in"

    one = (await client.get("/workflows/demo")).json()
    assert (
        one["workflow"]["name"] == "Demo"
        and one["hooks"][0]["binding_id"] == "demo.deploy_finished"
    )
    assert one["automation_preview"]["metadata"]["workflow_id"] == "demo"

    missing = await client.get("/workflows/nope")
    assert missing.status_code == 404 and missing.json()["code"] == "WORKFLOW_NOT_FOUND"


async def test_validate_reports_yaml_errors_with_file_and_line(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    broken = write_workflow(
        workspace, "broken.yaml", "workflow:\n  id: broken\n  steps:\n    - [unclosed\n"
    )
    write_workflow(
        workspace,
        "bad.yaml",
        "workflow:\n  id: bad\n  steps:\n    - id: r\n      action: tool:read\n"
        "      with: {path: 3}\n",
    )
    body = (await client.post("/workflows/validate", json={})).json()
    errors = [m for m in body["messages"] if m["severity"] == "error"]
    syntax = next(m for m in errors if m.get("source_path") == str(broken))
    assert syntax["line"] == 5 and "broken.yaml" in syntax["message"]
    schema = next(m for m in errors if m.get("workflow_id") == "bad")
    assert schema["step_id"] == "r" and schema["field"] == "with.path" and schema["line"] == 4
    assert sorted(body["registry"]["workflows"]) == ["bad", "demo"]

    bad_body = await client.post("/workflows/validate", json={"reload": "yes"})
    assert bad_body.status_code == 400 and bad_body.json()["field"] == "reload"


async def test_definition_changes_are_picked_up_without_a_restart(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    assert (await client.get("/workflows")).json()["count"] == 0
    path = write_workflow(workspace, "demo.yaml", DEMO)
    assert (await client.get("/workflows/demo")).json()["workflow"]["name"] == "Demo"
    path.write_text(DEMO.replace("name: Demo", "name: Renamed"))
    assert (await client.get("/workflows/demo")).json()["workflow"]["name"] == "Renamed"
    path.unlink()
    assert (await client.get("/workflows/demo")).status_code == 404


async def test_simulate_lists_matching_hooks_without_side_effects(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    body = (
        await client.post(
            "/workflows/simulate", json={"eventType": "deploy.finished", "properties": {"x": 1}}
        )
    ).json()["simulation"]
    assert [h["binding_id"] for h in body["matched_bindings"]] == ["demo.deploy_finished"]
    assert body["planned_actions"] == [
        {"action": "resource:patch:deploys", "with": {"last": "done"}}
    ]
    assert body["canonical_events"] == ["deploy.finished", "deploy_finished"]
    assert (await client.get("/workflows/runs")).json()["count"] == 0
    missing = await client.post("/workflows/simulate", json={"properties": {}})
    assert missing.status_code == 400 and missing.json()["field"] == "event_type"


async def test_hook_patch_persists_across_restarts(make_settings: Any, workspace: Path) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    settings = make_settings()
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url) as c,
    ):
        patched = await c.patch("/workflow-hooks/demo.deploy_finished", json={"enabled": False})
        assert patched.status_code == 200 and patched.json()["hook"]["enabled"] is False
        assert (await c.patch("/workflow-hooks/nope", json={"enabled": True})).json()["code"] == (
            "WORKFLOW_HOOK_NOT_FOUND"
        )
        bad = await c.patch("/workflow-hooks/demo.deploy_finished", json={"enabled": "no"})
        assert bad.status_code == 400 and bad.json()["field"] == "enabled"
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url) as c,
    ):
        hooks = (await c.get("/workflow-hooks", params={"workflow_id": "demo"})).json()
        assert hooks["count"] == 1 and hooks["hooks"][0]["enabled"] is False
        simulation = (
            await c.post("/workflows/simulate", json={"event_type": "deploy.finished"})
        ).json()
        assert simulation["simulation"]["matched_bindings"] == []
        assert [h["binding_id"] for h in simulation["simulation"]["skipped_bindings"]] == [
            "demo.deploy_finished"
        ]


async def test_run_executes_tool_event_and_resource_actions_in_order(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    response = await client.post("/workflows/demo/run", json={})
    assert response.status_code == 200, response.text
    run = response.json()["run"]
    assert run["workflow_id"] == "demo" and run["status"] in ("queued", "running")
    assert [a["action_id"] for a in run["actions"]] == ["note", "tell", "remember"]
    await wait_run(engine, run["run_id"], "workflow.run.completed")

    told = await wait_for_event(engine, "team.notified")
    assert (
        told.properties["payload"] == {"channel": "eng"}
        and told.properties["runID"] == run["run_id"]
    )
    done = (await client.get(f"/workflows/runs/{run['run_id']}")).json()["run"]
    assert done["status"] == "completed" and done["finished_at_ms"] >= done["created_at_ms"]
    assert [a["status"] for a in done["actions"]] == ["completed"] * 3
    assert "hello from a workflow" in done["actions"][0]["output"]["output"]
    assert done["actions"][0]["output"]["tool"] == "read"
    assert done["actions"][1]["output"] == {"eventType": "team.notified"}
    assert done["actions"][2]["output"] == {"key": "last-note", "rev": 1}
    listed = (await client.get("/workflows/runs", params={"workflow_id": "demo"})).json()
    assert listed["count"] == 1 and listed["runs"][0]["run_id"] == run["run_id"]


async def test_workflow_events_stream_reports_run_lifecycle(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    write_workflow(workspace, "gated.yaml", GATED)
    await client.get("/workflows")  # load the definitions (and start the hook dispatcher)
    base = engine.events.subscriber_count
    frames: list[dict[str, str]] = []
    async with trio.open_nursery() as nursery:

        async def listen() -> None:
            async with client.stream(
                "GET", "/workflows/events", params={"workflow_id": "demo"}
            ) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                frames.extend(await read_sse(response, 9))

        nursery.start_soon(listen)
        await engine.events.wait_for_subscribers(lambda n: n > base)
        await client.post("/workflows/gated/run", json={})  # another workflow: filtered out
        await client.post("/workflows/demo/run", json={})
    ready = json.loads(frames[0]["data"])
    assert ready["status"] == "ready" and ready["stream"] == "workflows"
    events = [json.loads(f["data"]) for f in frames[1:]]
    assert [e["type"] for e in events] == [
        "workflow.run.started",
        "workflow.action.started",
        "workflow.action.completed",
        "workflow.action.started",
        "workflow.action.completed",
        "workflow.action.started",
        "workflow.action.completed",
        "workflow.run.completed",
    ]
    assert {e["properties"]["workflowID"] for e in events} == {"demo"}
    assert all("id" in f for f in frames[1:])


async def test_workflow_events_filter_by_run_and_resume_from_a_cursor(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    first = (await client.post("/workflows/demo/run", json={})).json()["run"]["run_id"]
    await wait_run(engine, first, "workflow.run.completed")
    second = (await client.post("/workflows/demo/run", json={})).json()["run"]["run_id"]
    await wait_run(engine, second, "workflow.run.completed")
    await engine.events.flush()
    async with client.stream(
        "GET", "/workflows/events", params={"runId": second}, headers={"Last-Event-ID": "0"}
    ) as response:
        frames = await read_sse(response, 9)
    events = [json.loads(f["data"]) for f in frames[1:]]
    assert {e["properties"]["runID"] for e in events} == {second}
    assert (
        events[0]["type"] == "workflow.run.started"
        and events[-1]["type"] == "workflow.run.completed"
    )
    bad = await client.get("/workflows/events", headers={"Last-Event-ID": "later"})
    assert bad.status_code == 400 and bad.json()["field"] == "Last-Event-ID"


async def test_approval_gate_pauses_until_a_human_approves(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_workflow(workspace, "gated.yaml", GATED)
    run_id = (await client.post("/workflows/gated/run", json={})).json()["run"]["run_id"]
    paused = await wait_run(engine, run_id, "workflow.run.awaiting_approval")
    assert paused["actionID"] == "review" and paused["decisions"] == ["approve", "rework", "cancel"]
    run = (await client.get(f"/workflows/runs/{run_id}")).json()["run"]
    assert (
        run["status"] == "awaiting_approval" and run["awaiting_gate"]["title"] == "Review the draft"
    )
    assert [a["status"] for a in run["actions"]] == ["completed", "pending", "pending"]

    agent = await client.post(
        f"/workflows/runs/{run_id}/gate",
        json={"decision": "approve"},
        headers={"x-svc-agent-id": "agent-7"},
    )
    assert agent.status_code == 403 and agent.json()["code"] == "WORKFLOW_GATE_REQUIRES_HUMAN"
    invalid = await client.post(f"/workflows/runs/{run_id}/gate", json={"decision": "ship-it"})
    assert invalid.status_code == 400 and invalid.json()["code"] == "WORKFLOW_GATE_INVALID_DECISION"

    approved = await client.post(
        f"/workflows/runs/{run_id}/gate",
        json={"decision": "approve", "reason": "lgtm"},
        headers={"x-svc-request-source": "control_panel"},
    )
    assert approved.status_code == 200 and approved.json()["ok"] is True
    await wait_run(engine, run_id, "workflow.run.completed")
    done = (await client.get(f"/workflows/runs/{run_id}")).json()["run"]
    assert done["status"] == "completed" and "awaiting_gate" not in done
    assert (
        done["gate_history"][0]["decision"] == "approve"
        and done["gate_history"][0]["reason"] == "lgtm"
    )
    assert done["gate_history"][0]["decided_by"]["kind"] == "human"
    assert done["actions"][1]["output"] == {"decision": "approve", "reason": "lgtm"}

    again = await client.post(f"/workflows/runs/{run_id}/gate", json={"decision": "approve"})
    assert again.status_code == 409 and again.json()["code"] == "WORKFLOW_RUN_NOT_AWAITING_APPROVAL"
    assert again.json()["decidedGate"]["decision"] == "approve"


async def test_rework_reruns_the_targets_and_gates_again(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_workflow(workspace, "gated.yaml", GATED)
    run_id = (await client.post("/workflows/gated/run", json={})).json()["run"]["run_id"]
    first = await wait_for_event(engine, "workflow.run.awaiting_approval", run_id=run_id)
    await client.post(f"/workflows/runs/{run_id}/gate", json={"decision": "rework"})
    await wait_for_event(
        engine, "workflow.run.awaiting_approval", run_id=run_id, after_seq=first.seq
    )
    run = (await client.get(f"/workflows/runs/{run_id}")).json()["run"]
    assert run["status"] == "awaiting_approval"
    drafts = [
        e
        for e in await engine.events.replay(limit=10_000)
        if e.type == "workflow.action.completed"
        and e.properties.get("actionID") == "draft"
        and e.properties.get("runID") == run_id
    ]
    assert len(drafts) == 2
    cancelled = await client.post(f"/workflows/runs/{run_id}/gate", json={"decision": "cancel"})
    final = cancelled.json()["run"]
    assert final["status"] == "cancelled" and [a["status"] for a in final["actions"]] == [
        "completed",
        "skipped",
        "skipped",
    ]
    assert [g["decision"] for g in final["gate_history"]] == ["rework", "cancel"]


async def test_dry_run_records_actions_as_skipped(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    run = (await client.post("/workflows/demo/run", json={"dryRun": True})).json()["run"]
    assert run["status"] == "dry_run" and {a["status"] for a in run["actions"]} == {"skipped"}
    assert all("output" not in a for a in run["actions"])


async def test_run_refuses_disabled_workflows_and_bad_workspace(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    write_workflow(
        workspace, "off.yaml", "workflow:\n  id: off\n  enabled: false\n  steps: [planner]\n"
    )
    write_workflow(workspace, "demo.yaml", DEMO)
    disabled = await client.post("/workflows/off/run", json={})
    assert disabled.status_code == 409 and disabled.json()["code"] == "WORKFLOW_DISABLED"
    relative = await client.post("/workflows/demo/run", json={"workspace_root": "relative/dir"})
    assert relative.status_code == 400 and relative.json()["field"] == "workspace_root"
    assert (await client.post("/workflows/nope/run", json={})).status_code == 404


async def test_a_failing_action_fails_the_run(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_workflow(
        workspace,
        "bad.yaml",
        "workflow:\n  id: bad\n  steps:\n    - id: r\n      action: tool:read\n"
        "      with: {path: missing.txt}\n    - event:never\n",
    )
    run_id = (await client.post("/workflows/bad/run", json={})).json()["run"]["run_id"]
    failed = await wait_run(engine, run_id, "workflow.run.failed")
    assert failed["actionID"] == "r" and "tool `read` failed" in failed["error"]
    run = (await client.get(f"/workflows/runs/{run_id}")).json()["run"]
    assert [a["status"] for a in run["actions"]] == ["failed", "pending"]
    assert run["actions"][0]["detail"] == failed["error"]


async def test_tools_that_need_approval_are_refused_outside_a_session(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_workflow(
        workspace,
        "w.yaml",
        "workflow:\n  id: w\n  steps:\n    - id: save\n      action: tool:write\n"
        "      with: {path: out.txt, content: x}\n",
    )
    run_id = (await client.post("/workflows/w/run", json={})).json()["run"]["run_id"]
    failed = await wait_run(engine, run_id, "workflow.run.failed")
    assert "TOOL_DISPATCH_DENIED" in failed["error"] and not (workspace / "out.txt").exists()


async def test_hooks_run_their_actions_when_the_event_is_published(
    engine: svc.Engine, workspace: Path, client: httpx.AsyncClient
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    await client.get("/workflows")  # load the definitions
    engine.events.publish("deploy.finished", {"service": "api"})
    started = await wait_for_event(
        engine,
        "workflow.run.started",
        where=lambda e: e.properties.get("bindingID") == "demo.deploy_finished",
    )
    run_id = started.properties["runID"]
    await wait_run(engine, run_id, "workflow.run.completed")
    run = (await client.get(f"/workflows/runs/{run_id}")).json()["run"]
    assert run["trigger_type"] == "hook" and run["trigger_event"] == "deploy.finished"
    assert run["actions"] == [
        {
            "action_id": "action_1",
            "action": "resource:patch:deploys",
            "with": {"last": "done"},
            "status": "completed",
            "updated_at_ms": run["actions"][0]["updated_at_ms"],
            "output": {"key": "deploys", "rev": 1},
        }
    ]


async def test_a_hook_does_not_retrigger_itself(
    engine: svc.Engine, workspace: Path, client: httpx.AsyncClient
) -> None:
    write_workflow(
        workspace,
        "loop.yaml",
        """
workflow:
  id: loop
  steps: []
  hooks:
    ping:
      - event:ping
""",
    )
    await client.get("/workflows")
    engine.events.publish("ping", {})
    started = await wait_for_event(engine, "workflow.run.started")
    await wait_run(engine, started.properties["runID"], "workflow.run.completed")
    await workflows_of(engine).runner.wait_idle()
    await engine.events.flush()
    runs = (await client.get("/workflows/runs")).json()
    assert runs["count"] == 1
    pings = [e for e in await engine.events.replay(limit=10_000) if e.type == "ping"]
    assert len(pings) == 2 and pings[1].properties["hookChain"] == ["loop.ping"]


async def test_runs_left_running_by_a_crash_end_failed_at_start(
    make_settings: Any, workspace: Path
) -> None:
    write_workflow(workspace, "demo.yaml", DEMO)
    settings = make_settings()
    async with svc.open_engine(settings) as engine:
        service = workflows_of(engine)
        run = await service.start_run("demo", dry_run=True)
        await service.repo.save_run(attrs.evolve(run, status="running", finished_at_ms=None))
    async with svc.open_engine(settings) as engine:
        recovered = await workflows_of(engine).get_run(run.run_id)
        assert (
            recovered.status == "failed"
            and recovered.detail == "the engine stopped while this run was active"
        )


async def test_an_undecided_gate_expires_and_cancels_the_run(
    make_settings: Any, workspace: Path, mock_clock: Any
) -> None:
    write_workflow(workspace, "gated.yaml", GATED)
    settings = make_settings(workflow_gate_ttl_ms=60_000)
    async with svc.open_engine(settings, clock=svc.clock.TrioClock()) as engine:
        service = workflows_of(engine)
        run = await service.start_run("gated")
        paused = await wait_for_event(engine, "workflow.run.awaiting_approval", run_id=run.run_id)
        mock_clock.jump(59)
        await trio.testing.wait_all_tasks_blocked()
        assert (await service.get_run(run.run_id)).status == "awaiting_approval"
        mock_clock.jump(2)
        cancelled = await wait_for_event(
            engine, "workflow.run.cancelled", run_id=run.run_id, after_seq=paused.seq
        )
        assert cancelled.properties["reason"] == "gate_expired"
        expired = await service.get_run(run.run_id)
        assert (
            expired.status == "cancelled"
            and expired.detail == "the approval gate expired before a decision"
        )
        with pytest.raises(RunNotAwaitingApproval):
            await service.decide_gate(
                run.run_id, "approve", reason=None, requester=requester_from(None, None)
            )
