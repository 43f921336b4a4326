"""Routines and automations v1 over HTTP: bodies, runs as session runs, allowlists, routing,
approvals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing

import svc
from svc.events import EventFilter, EventStream
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import read_sse, wait_for_event

from .support import offered_tools, user_prompt


def routine_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "routine_id": "digest",
        "name": "Daily digest",
        "schedule": {"interval_seconds": {"seconds": 3600}},
        "entrypoint": "mission.default",
        "args": {"prompt": "Summarise the notes", "success_criteria": ["Mentions every note"]},
        "allowed_tools": ["read", " glob ", "read"],
        "output_targets": [],
    }
    body.update(overrides)
    return body


async def settle(engine: svc.Engine, run_id: str) -> Any:
    """The run once its terminal event is out (run.completed or run.failed on topic automations)."""
    with (
        trio.fail_after(30),
        EventStream(
            engine.events, EventFilter(run_id=run_id, topic="automations"), after_seq=0
        ) as stream,
    ):
        while True:
            for event in await stream.receive():
                if event.type in ("run.completed", "run.failed"):
                    return await engine.automations.routines.get_run(run_id)


async def test_both_paths_take_both_body_shapes(client: httpx.AsyncClient) -> None:
    created = await client.post("/routines", json=routine_body())
    assert created.status_code == 200, created.text
    routine = created.json()["routine"]
    assert routine["routine_id"] == "digest" and routine["state"] == "active"
    assert routine["id"] == "digest" and routine["status"] == "enabled"
    assert routine["allowed_tools"] == ["read", "glob"]
    assert (
        routine["schedule"] == {"interval_seconds": {"seconds": 3600}}
        and routine["timezone"] == "UTC"
    )
    assert (
        routine["misfire_policy"] == {"type": "run_once"} and routine["next_fire_at_ms"] is not None
    )
    assert (
        routine["requires_approval"] is False and routine["external_integrations_allowed"] is False
    )

    mission = {
        "automation_id": "auto-digest",
        "name": "Digest",
        "schedule": {"interval_seconds": {"seconds": 600}},
        "mode": "orchestrated",
        "mission": {"objective": "Generate a digest", "success_criteria": ["Has sources"]},
        "policy": {
            "tool": {"run_allowlist": ["read"], "orchestrator_only_tool_calls": True},
            "approval": {"requires_approval": False},
        },
        "model_policy": {"default_model": {"provider_id": "openai", "model_id": "m1"}},
    }
    as_automation = (await client.post("/automations", json=mission)).json()["automation"]
    assert (
        as_automation["automation_id"] == "auto-digest" and as_automation["mode"] == "orchestrated"
    )
    assert as_automation["mission"]["objective"] == "Generate a digest"
    assert as_automation["policy"]["tool"] == {
        "run_allowlist": ["read"],
        "external_integrations_allowed": False,
        "orchestrator_only_tool_calls": True,
    }
    assert as_automation["model_policy"]["default_model"]["model_id"] == "m1"
    # The same routine through the other path and dialect.
    routines = (await client.get("/routines")).json()
    mirrored = next(r for r in routines["routines"] if r["routine_id"] == "auto-digest")
    assert (
        mirrored["args"]["prompt"] == "Generate a digest"
        and mirrored["entrypoint"] == "mission.default"
    )
    assert routines["count"] == 2
    # Routine shape on /automations, mission shape on /routines.
    assert (
        await client.post("/automations", json=routine_body(routine_id="r2"))
    ).status_code == 200
    assert (
        await client.post("/routines", json={**mission, "automation_id": "m2"})
    ).status_code == 200
    listed = (await client.get("/automations")).json()
    assert listed["count"] == 4 and {a["automation_id"] for a in listed["automations"]} >= {
        "r2",
        "m2",
    }


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        (
            routine_body(schedule={"interval_seconds": {"seconds": 0}}),
            400,
            "INVALID_ROUTINE_SCHEDULE",
            "schedule.interval_seconds.seconds",
        ),
        (routine_body(timezone="Mars/Olympus"), 400, "ROUTINE_INVALID", "timezone"),
        (
            routine_body(output_targets=["file://../outside.md"]),
            400,
            "ROUTINE_INVALID",
            "output_targets[0]",
        ),
        (
            routine_body(output_targets=["file:///etc/passwd"]),
            400,
            "ROUTINE_INVALID",
            "output_targets[0]",
        ),
        (
            routine_body(
                args={"prompt": "x", "model_policy": {"default_model": {"provider_id": "openai"}}}
            ),
            400,
            "ROUTINE_INVALID",
            "args.model_policy.default_model.model_id",
        ),
        (
            routine_body(misfire_policy={"type": "catch_up"}),
            400,
            "ROUTINE_INVALID",
            "misfire_policy.max_runs",
        ),
        (
            routine_body(schedule={"cron": {"expression": "61 * * * *"}}),
            400,
            "ROUTINE_INVALID",
            "schedule.cron.expression",
        ),
        (routine_body(mode="turbo"), 400, "ROUTINE_INVALID", "mode"),
    ],
)
async def test_invalid_routine_bodies_are_400s_naming_the_field(
    client: httpx.AsyncClient,
    body: dict[str, Any],
    status: int,
    code: str,
    field: str,
) -> None:
    response = await client.post("/routines", json=body)
    assert response.status_code == status, response.text
    assert response.json()["code"] == code and response.json()["field"] == field


async def test_output_targets_may_not_escape_through_a_symlink(
    client: httpx.AsyncClient, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "escape").symlink_to(tmp_path)
    response = await client.post(
        "/routines", json=routine_body(output_targets=["file://escape/x.md"])
    )
    assert response.status_code == 400 and "outside the workspace" in response.json()["error"]


async def test_a_run_is_a_session_run_that_sees_only_the_allowed_tools(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("bash", {"command": "echo pwned"}, id="c1")),
        Turn.reply("Digest: all notes covered."),
    )
    await client.post(
        "/routines",
        json=routine_body(
            args={
                "prompt": "Summarise the notes",
                "success_criteria": ["Mentions every note"],
                "mode": "orchestrated",
                "orchestrator_only_tool_calls": True,
            }
        ),
    )
    started = await client.post("/routines/digest/run_now", json={})
    assert started.status_code == 200, started.text
    body = started.json()
    assert body["ok"] is True and body["status"] == "queued" and body["routineID"] == "digest"
    run = await settle(engine, body["runID"])
    assert run.status == "completed", run.detail
    first = fake_model.requests[0].body
    assert offered_tools(fake_model.requests[0]) == {"read", "glob"}
    system = first["messages"][0]["content"]
    assert (
        "Plan -> Do -> Verify -> Notify" in system
        and "only the orchestrator executes tools" in system
    )
    prompt = user_prompt(fake_model.requests[0])
    assert "Automation ID: digest" in prompt and f"Run ID: {run.run_id}" in prompt
    assert "Mission Objective: Summarise the notes" in prompt and "- Mentions every note" in prompt
    assert "Allowed Tools: read, glob" in prompt and "Output Targets: none configured" in prompt
    # The disallowed call was refused, never executed.
    tool_reply = next(m for m in fake_model.requests[1].body["messages"] if m["role"] == "tool")
    assert "not allowed" in tool_reply["content"]

    record = (await client.get(f"/routines/runs/{run.run_id}")).json()["run"]
    assert record["allowed_tools"] == ["read", "glob"] and record["status"] == "completed"
    assert record["trigger_type"] == "manual" and record["total_tokens"] > 0
    assert record["latest_session_id"] and record["model"]["source"] == "config.default_provider"
    wire = (await client.get(f"/automations/runs/{run.run_id}")).json()["run"]
    assert wire["policy_snapshot"]["tool"]["run_allowlist"] == ["read", "glob"]
    assert wire["allowed_tools"] == ["read", "glob"] and wire["mode"] == "orchestrated"
    assert (
        wire["attach_event_stream"]
        == f"/event?sessionID={record['latest_session_id']}&runID={run.run_id}"
    )
    session = (await client.get(f"/session/{record['latest_session_id']}")).json()
    assert session["title"] == "Routine digest"


async def test_an_empty_allowlist_means_no_tools(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    await client.post("/routines", json=routine_body(allowed_tools=[]))
    run_id = (await client.post("/routines/digest/run_now", json={})).json()["runID"]
    assert (await settle(engine, run_id)).status == "completed"
    assert "tools" not in fake_model.requests[0].body or not fake_model.requests[0].body["tools"]
    assert "Allowed Tools: none" in user_prompt(fake_model.requests[0])


async def test_model_routing_prefers_the_orchestrator_role_then_the_default_model(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
) -> None:
    policy = {
        "default_model": {"provider_id": "openai", "model_id": "default-m"},
        "role_models": {
            "orchestrator": {"provider_id": "openai", "model_id": "orchestrator-m"},
            "worker": {"provider_id": "openai", "model_id": "worker-m"},
        },
    }
    await client.post(
        "/routines",
        json=routine_body(
            routine_id="orch", args={"prompt": "x", "mode": "orchestrated", "model_policy": policy}
        ),
    )
    await client.post(
        "/routines",
        json=routine_body(routine_id="solo", args={"prompt": "x", "model_policy": policy}),
    )
    await client.post(
        "/routines",
        json=routine_body(
            routine_id="elsewhere",
            args={
                "prompt": "x",
                "model_policy": {
                    "default_model": {"provider_id": "anthropic", "model_id": "not-configured"}
                },
            },
        ),
    )
    for routine_id, expected, source in (
        ("orch", "orchestrator-m", "args.model_policy.role_models.orchestrator"),
        ("solo", "default-m", "args.model_policy.default_model"),
        ("elsewhere", "fake-model", "config.default_provider"),
    ):
        run_id = (await client.post(f"/routines/{routine_id}/run_now", json={})).json()["runID"]
        assert (await settle(engine, run_id)).status == "completed"
        assert fake_model.last.body["model"] == expected
        selected = await wait_for_event(engine, "routine.run.model_selected", run_id=run_id)
        assert (
            selected.properties["modelID"] == expected and selected.properties["source"] == source
        )


async def test_patching_model_policy_with_an_empty_object_clears_it(
    client: httpx.AsyncClient,
) -> None:
    policy = {"default_model": {"provider_id": "openai", "model_id": "m"}}
    await client.post(
        "/routines", json=routine_body(args={"prompt": "keep me", "model_policy": policy})
    )
    patched = (await client.patch("/routines/digest", json={"args": {"model_policy": {}}})).json()[
        "routine"
    ]
    assert "model_policy" not in patched["args"] and patched["args"]["prompt"] == "keep me"
    await client.patch("/automations/digest", json={"model_policy": policy})
    assert (await client.get("/automations")).json()["automations"][0]["model_policy"] == policy
    cleared = (await client.patch("/automations/digest", json={"model_policy": {}})).json()[
        "automation"
    ]
    assert cleared["model_policy"] is None
    wrong = await client.patch("/automations/digest", json={"model_policy": "none"})
    assert wrong.status_code == 400 and "use {} to clear" in wrong.json()["error"]
    assert (await client.patch("/routines/ghost", json={"name": "x"})).json()[
        "code"
    ] == "ROUTINE_NOT_FOUND"
    assert (await client.patch("/automations/ghost", json={"name": "x"})).json()[
        "code"
    ] == "AUTOMATION_NOT_FOUND"


async def test_requires_approval_holds_runs_for_a_human(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    await client.post("/routines", json=routine_body(requires_approval=True))
    body = (await client.post("/routines/digest/run_now", json={})).json()
    assert body["run_status"] == "pending_approval" and body["status"] == "queued"
    run_id = body["runID"]
    required = await wait_for_event(engine, "approval.required", run_id=run_id)
    assert "manual approval required" in required.properties["reason"]
    assert fake_model.requests == []
    approved = await client.post(f"/routines/runs/{run_id}/approve", json={"reason": "go"})
    assert (
        approved.json()["run"]["status"] == "queued"
        and approved.json()["run"]["approval_reason"] == "go"
    )
    assert (await settle(engine, run_id)).status == "completed"
    again = await client.post(f"/routines/runs/{run_id}/approve", json={})
    assert again.status_code == 409 and again.json()["code"] == "ROUTINE_RUN_NOT_PENDING_APPROVAL"

    second = (await client.post("/automations/digest/run_now", json={})).json()
    assert second["run"]["status"] == "pending_approval"
    denied = await client.post(f"/automations/runs/{second['run']['run_id']}/deny", json={})
    assert (
        denied.json()["run"]["status"] == "denied"
        and denied.json()["run"]["denial_reason"] == "denied by operator"
    )
    assert len(fake_model.requests) == 1


async def test_external_integrations_are_enforced_as_policy(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    await client.post("/routines", json=routine_body(allowed_tools=["read", "mcp.github.*"]))
    blocked = await client.post("/routines/digest/run_now", json={})
    assert blocked.status_code == 403
    body = blocked.json()
    assert body["code"] == "ROUTINE_POLICY_BLOCKED" and body["routineID"] == "digest"
    run = (await client.get(f"/routines/runs/{body['runID']}")).json()["run"]
    assert run["status"] == "blocked_policy"
    failed = await wait_for_event(engine, "run.failed", run_id=body["runID"])
    assert failed.properties["status"] == "blocked_policy"
    assert fake_model.requests == []

    await client.patch("/routines/digest", json={"external_integrations_allowed": True})
    allowed = await client.post("/routines/digest/run_now", json={})
    assert allowed.status_code == 200 and allowed.json()["status"] == "queued"


async def test_output_targets_are_recorded_as_artifacts(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall("write", {"path": "reports/out.md", "content": "# Digest"}, id="w1")
        ),
        Turn.reply("Wrote the digest."),
    )
    await client.post(
        "/routines",
        json=routine_body(
            allowed_tools=["write"],
            output_targets=["file://reports/out.md", "file://reports/missing.md"],
        ),
    )
    run_id = (await client.post("/routines/digest/run_now", json={})).json()["runID"]
    run = await settle(engine, run_id)
    assert run.status == "completed", run.detail
    # `write` is pre-approved for the run's session: it ran without a prompt.
    assert (workspace / "reports" / "out.md").read_text() == "# Digest"
    assert "Output Targets:\n- file://reports/out.md" in user_prompt(fake_model.requests[0])
    listed = (await client.get(f"/routines/runs/{run_id}/artifacts")).json()
    assert listed["count"] == 2 and listed["runID"] == run_id
    first, second = listed["artifacts"]
    assert first["uri"] == "file://reports/out.md" and first["kind"] == "output_target"
    assert first["metadata"]["exists"] is True and first["metadata"]["path"] == "reports/out.md"
    assert second["metadata"]["exists"] is False

    added = await client.post(
        f"/automations/runs/{run_id}/artifacts",
        json={"uri": "https://example.test/r", "kind": "link", "label": "report"},
    )
    assert added.status_code == 200 and added.json()["artifact"]["artifact_id"].startswith(
        "artifact-"
    )
    assert len(added.json()["run"]["artifacts"]) == 3
    outside = await client.post(
        f"/routines/runs/{run_id}/artifacts", json={"uri": "file://../x", "kind": "file"}
    )
    assert outside.status_code == 400 and outside.json()["code"] == "ROUTINE_ARTIFACT_INVALID"
    missing = await client.post(f"/routines/runs/{run_id}/artifacts", json={"uri": "x"})
    assert missing.json()["field"] == "kind"


async def test_pause_cancels_the_session_and_resume_runs_again(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    hold = trio.Event()
    fake_model.enqueue(Turn.reply("first attempt", gate=hold), Turn.reply("second attempt"))
    await client.post("/routines", json=routine_body())
    run_id = (await client.post("/routines/digest/run_now", json={})).json()["runID"]
    await fake_model.wait_for_requests(1)
    await wait_for_event(
        engine, "run.step", run_id=run_id, where=lambda e: e.properties.get("step") == "started"
    )
    paused = await client.post(f"/routines/runs/{run_id}/pause", json={"reason": "hold on"})
    assert paused.status_code == 200
    assert (
        paused.json()["run"]["status"] == "paused"
        and paused.json()["run"]["paused_reason"] == "hold on"
    )
    session_id = paused.json()["cancelledSessionIDs"][0]
    finished = await wait_for_event(engine, "session.run.finished", session_id=session_id)
    assert finished.properties["status"] == "cancelled"
    assert (await engine.automations.routines.get_run(run_id)).status == "paused"
    not_paused = await client.post(f"/routines/runs/{run_id}/pause", json={})
    assert not_paused.status_code == 409 and not_paused.json()["code"] == "ROUTINE_RUN_NOT_PAUSABLE"

    resumed = await client.post(f"/routines/runs/{run_id}/resume", json={})
    assert resumed.json()["run"]["status"] == "queued"
    run = await settle(engine, run_id)
    assert run.status == "completed" and len(run.session_ids) == 2
    assert (await client.post(f"/routines/runs/{run_id}/resume", json={})).json()[
        "code"
    ] == "ROUTINE_RUN_NOT_PAUSED"
    hold.set()


async def test_agents_cannot_create_or_run_routines(client: httpx.AsyncClient) -> None:
    as_agent = await client.post(
        "/routines", json=routine_body(), headers={"x-svc-agent-id": "agent-7"}
    )
    assert as_agent.status_code == 403 and as_agent.json()["code"] == "ROUTINE_REQUIRES_HUMAN"
    by_source = await client.post(
        "/automations", json=routine_body(), headers={"x-svc-request-source": "agent"}
    )
    assert by_source.status_code == 403 and by_source.json()["code"] == "ROUTINE_REQUIRES_HUMAN"
    panel = await client.post(
        "/routines", json=routine_body(), headers={"x-svc-request-source": "control_panel"}
    )
    assert panel.status_code == 200
    run = await client.post(
        "/routines/digest/run_now", json={}, headers={"x-svc-agent-id": "agent-7"}
    )
    assert run.status_code == 403 and run.json()["code"] == "ROUTINE_REQUIRES_HUMAN"
    tool = await client.post(
        "/automations/digest/run_now", json={}, headers={"x-svc-request-source": "tool_call"}
    )
    assert tool.status_code == 403


async def test_runs_history_and_listing(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    await client.post("/routines", json=routine_body())
    await client.post("/routines", json=routine_body(routine_id="other"))
    body = (
        await client.post("/routines/digest/run_now", json={"run_count": 2, "reason": "twice"})
    ).json()
    assert body["runCount"] == 2 and len(body["runIDs"]) == 2
    for run_id in body["runIDs"]:
        await settle(engine, run_id)
    other = (await client.post("/routines/other/run_now", json={})).json()["runID"]
    await settle(engine, other)
    runs = (await client.get("/automations/runs", params={"routine_id": "digest"})).json()
    assert runs["count"] == 2 and all(r["automation_id"] == "digest" for r in runs["runs"])
    by_alias = (
        await client.get("/automations/runs", params={"automation_id": "other", "limit": 1})
    ).json()
    assert by_alias["count"] == 1 and by_alias["runs"][0]["run_id"] == other
    everything = (await client.get("/routines/runs")).json()
    assert [r["run_id"] for r in everything["runs"]] == [other, *reversed(body["runIDs"])]
    history = (await client.get("/routines/digest/history")).json()
    assert history["routineID"] == "digest" and history["count"] == 2
    assert all(
        e["status"] == "completed" and e["trigger_type"] == "manual" for e in history["events"]
    )
    per_routine = (await client.get("/automations/digest/runs")).json()
    assert per_routine["automationID"] == "digest" and per_routine["count"] == 2
    too_many = await client.post("/routines/digest/run_now", json={"run_count": 21})
    assert too_many.status_code == 400 and too_many.json()["field"] == "run_count"
    deleted = (await client.delete("/routines/other")).json()
    assert deleted == {"deleted": True, "routineID": "other"}
    assert (await client.get("/routines/runs", params={"routine_id": "other"})).json()["count"] == 1


async def read_stream(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    path: str,
    count: int,
    params: dict[str, str],
    trigger: Any,
) -> list[dict[str, Any]]:
    with trio.fail_after(30):
        return await _read_stream(client, engine, path, count, params, trigger)


async def _read_stream(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    path: str,
    count: int,
    params: dict[str, str],
    trigger: Any,
) -> list[dict[str, Any]]:
    async with client.stream("GET", path, params=params) as response:
        assert response.headers["content-type"].startswith("text/event-stream")

        async def go() -> None:
            await engine.events.wait_for_subscribers(lambda n: n >= 1)
            await trigger()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(go)
            frames = await read_sse(response, count)
    return [json.loads(frame["data"]) for frame in frames]


async def test_the_automations_event_stream(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    await client.post("/routines", json=routine_body(requires_approval=True))
    await client.post("/routines", json=routine_body(routine_id="noise"))

    async def trigger() -> None:
        await client.post("/routines/noise/run_now", json={})
        run_id = (await client.post("/routines/digest/run_now", json={})).json()["runID"]
        await client.post(f"/routines/runs/{run_id}/approve", json={})

    payloads = await read_stream(
        client, engine, "/automations/events", 7, {"automation_id": "digest"}, trigger
    )
    assert payloads[0]["status"] == "ready" and payloads[0]["stream"] == "automations"
    assert isinstance(payloads[0]["timestamp_ms"], int)
    kinds = [p["type"] for p in payloads[1:]]
    assert kinds == [
        "run.started",
        "approval.required",
        "run.step",
        "run.step",
        "routine.run.model_selected",
        "run.completed",
    ]
    assert [p["properties"].get("step") for p in payloads[3:5]] == ["approved", "started"]
    assert all(p["properties"]["routineID"] == "digest" for p in payloads[1:])
    assert all(p["properties"]["automationID"] == "digest" for p in payloads[1:])


async def test_the_routines_event_stream_uses_routine_names(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    async def trigger() -> None:
        await client.post("/routines", json=routine_body(allowed_tools=["mcp.github.*"]))
        await client.post("/routines/digest/run_now", json={})

    payloads = await read_stream(client, engine, "/routines/events", 4, {}, trigger)
    assert payloads[0]["stream"] == "routines"
    assert [p["type"] for p in payloads[1:]] == [
        "routine.created",
        "routine.run.created",
        "routine.blocked",
    ]
    assert payloads[3]["properties"]["status"] == "blocked_policy"


async def test_the_automations_event_stream_reports_failures_and_keeps_alive(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    mock_clock: trio.testing.MockClock,
) -> None:
    await client.post("/routines", json=routine_body(routine_id="broken"))
    fake_model.enqueue(Turn.failure(400, "the model refused"))
    blocks: list[str] = []
    arrived = trio.Event()

    async def next_block(count: int) -> str:
        nonlocal arrived
        while len(blocks) < count:
            await arrived.wait()
            arrived = trio.Event()
        return blocks[count - 1]

    async with client.stream(
        "GET", "/automations/events", params={"routine_id": "broken"}, timeout=None
    ) as response:

        async def pump() -> None:
            buffer = ""
            async for chunk in response.aiter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    blocks.append(block)
                    arrived.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(pump)
            with trio.fail_after(30):
                ready = json.loads((await next_block(1)).removeprefix("data: "))
                assert ready["status"] == "ready" and ready["stream"] == "automations"
                # Ten silent seconds (on trio's clock) bring a keep-alive comment.
                await trio.testing.wait_all_tasks_blocked()
                mock_clock.jump(10)
                assert await next_block(2) == ": keep-alive"

                run_id = (await client.post("/routines/broken/run_now", json={})).json()["runID"]
                failed = None
                count = 2
                while failed is None:
                    count += 1
                    block = await next_block(count)
                    data = "".join(
                        line.removeprefix("data: ")
                        for line in block.splitlines()
                        if line.startswith("data: ")
                    )
                    if data and json.loads(data)["type"] == "run.failed":
                        failed = json.loads(data)
            nursery.cancel_scope.cancel()
    assert failed["properties"]["runID"] == run_id and failed["properties"]["routineID"] == "broken"
    assert (
        failed["properties"]["status"] == "failed"
        and "the model refused" in failed["properties"]["reason"]
    )
    assert (await engine.automations.routines.get_run(run_id)).status == "failed"


async def test_routine_route_shapes(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    await client.post("/automations", json=routine_body(requires_approval=True))
    started = (await client.post("/automations/digest/run_now", json={})).json()
    run_id = started["run"]["run_id"]
    assert started["runID"] == run_id and started["run_status"] == "pending_approval"
    assert started["status"] == "queued" and started["run"]["status"] == "pending_approval"
    # A run's context run is its own event timeline.
    assert started["contextRunID"] == started["linked_context_run_id"] == run_id
    assert started["run"]["contextRunID"] == run_id
    approved = (await client.post(f"/automations/runs/{run_id}/approve", json={})).json()
    assert (
        approved["contextRunID"] == run_id
        and approved["run"]["approval_reason"] == "approved by operator"
    )
    await settle(engine, run_id)
    timeline = (await client.get(f"/runs/{started['contextRunID']}/events")).json()
    kinds = [e["event_type"] for e in timeline["events"]]
    assert (
        kinds[0] == "run.started" and "approval.required" in kinds and kinds[-1] == "run.completed"
    )
    artifacts = (await client.get(f"/automations/runs/{run_id}/artifacts")).json()
    assert artifacts == {
        "runID": run_id,
        "artifacts": [],
        "count": 0,
        "contextRunID": run_id,
        "linked_context_run_id": run_id,
    }
    as_routine = (await client.post("/routines/digest/run_now", json={})).json()
    assert as_routine["contextRunID"] == as_routine["runID"]
    await client.post(f"/routines/runs/{as_routine['runID']}/deny", json={"reason": "not today"})

    deleted = (await client.delete("/automations/digest")).json()
    assert deleted["ok"] is True and deleted["automation"]["automation_id"] == "digest"
    assert (await client.get("/automations")).json() == {"automations": [], "count": 0}
    gone = await client.delete("/automations/digest")
    assert gone.status_code == 404 and gone.json()["code"] == "AUTOMATION_NOT_FOUND"
    assert (await client.get("/routines/digest/history")).json()["code"] == "ROUTINE_NOT_FOUND"
