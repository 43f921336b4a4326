"""The workflow planner routes against a real engine and the scripted model server."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

import svc
from svc.events import EventFilter
from svc.workflows import PlanRequest, planner_of
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event

PLAN = {
    "title": "Issue digest",
    "description": "Collect new issues and write a digest",
    "schedule": {"type": "interval", "interval_seconds": 3600, "misfire_policy": "run_once"},
    "steps": [
        {
            "step_id": "collect_issues",
            "kind": "research",
            "objective": "List the issues opened today",
            "agent_role": "researcher",
            "depends_on": [],
            "input_refs": [],
            "output_contract": {"kind": "structured_json", "validator": "structured_json"},
        },
        {
            "step_id": "write_digest",
            "kind": "drafting",
            "objective": "Write digest.md from the issue list",
            "agent_role": "writer",
            "depends_on": ["collect_issues"],
            "input_refs": [{"from_step_id": "collect_issues", "alias": "issues"}],
            "output_contract": {"kind": "report_markdown"},
        },
    ],
}


def build(
    plan: dict[str, Any] = PLAN, text: str = "Here is a two-step digest workflow.", **turn: Any
) -> Turn:
    return Turn.reply(json.dumps({"action": "build", "assistant_text": text, "plan": plan}), **turn)


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def start_chat(
    client: httpx.AsyncClient, fake_model: Any, workspace: Path, **extra: Any
) -> dict[str, Any]:
    fake_model.enqueue(build())
    response = await client.post(
        "/workflow-plans/chat/start",
        json={
            "prompt": "Every hour, summarise new issues into digest.md",
            "planSource": "control_panel",
            "workspaceRoot": str(workspace),
            **extra,
        },
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_preview_drafts_a_plan_with_the_configured_model(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    fake_model.enqueue(
        Turn.reply(
            "```json\n"
            + json.dumps({"action": "build", "plan": PLAN, "assistant_text": "Drafted."})
            + "\n```"
        )
    )
    response = await client.post(
        "/workflow-plans/preview",
        json={
            "prompt": "Every hour, summarise new issues into digest.md",
            "plan_source": "api",
            "workspace_root": str(workspace),
            "allowed_mcp_servers": ["github"],
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    plan = body["plan"]
    assert plan["plan_id"].startswith("wfplan-") and plan["plan_source"] == "api"
    assert plan["workspace_root"] == str(workspace) and plan["execution_target"] == "automation_v2"
    assert [s["step_id"] for s in plan["steps"]] == ["collect_issues", "write_digest"]
    assert plan["schedule"] == {
        "type": "interval",
        "interval_seconds": 3600,
        "timezone": "UTC",
        "misfire_policy": {"type": "run_once"},
    }
    assert plan["allowed_mcp_servers"] == ["github"]
    assert body["plan_package"]["plan_id"] == plan["plan_id"]
    assert body["plan_package_bundle"]["scope_snapshot"]["plan_id"] == plan["plan_id"]
    assert body["plan_package_validation"]["ready_for_apply"] is True
    assert body["overlap_analysis"]["decision"] == "new"
    assert body["assistant_message"] == {"role": "assistant", "text": "Drafted."}
    assert body["planner_diagnostics"]["planner_model"] == "fake-model"
    assert body["planner_diagnostics"]["fallback_reason"] is None
    assert "conversation" not in body and body["teaching_library"]["topics"]

    request = fake_model.requests[0].body
    assert request["model"] == "fake-model" and "tools" not in request
    assert "Every hour, summarise new issues into digest.md" in request["messages"][-1]["content"]
    assert (
        "Allowed MCP servers (their tools are mcp.<server>.*): github"
        in request["messages"][-1]["content"]
    )
    drafted = await wait_for_event(engine, "workflow.plan.drafted")
    assert drafted.properties["planID"] == plan["plan_id"] and drafted.topic == "workflows"
    stored = (await client.get(f"/workflow-plans/{plan['plan_id']}")).json()
    assert stored["plan"] == plan and stored["plan_package_replay"]["compatible"] is True


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("Sure! I would collect issues and then write a digest.", "invalid_json"),
        (
            json.dumps(
                {
                    "action": "build",
                    "plan": {**PLAN, "steps": [{"objective": f"s{i}"} for i in range(12)]},
                }
            ),
            "validation_rejected",
        ),
        (
            json.dumps(
                {
                    "action": "build",
                    "plan": {
                        **PLAN,
                        "steps": [
                            {"step_id": "a", "objective": "x", "depends_on": ["b"]},
                            {"step_id": "b", "objective": "y", "depends_on": ["a"]},
                        ],
                    },
                }
            ),
            "validation_rejected",
        ),
    ],
)
async def test_an_unusable_reply_falls_back_to_a_one_step_draft(
    client: httpx.AsyncClient, fake_model: Any, reply: str, reason: str
) -> None:
    fake_model.enqueue(Turn.reply(reply))
    body = (
        await client.post("/workflow-plans/preview", json={"prompt": "Tidy the docs folder"})
    ).json()
    assert [s["step_id"] for s in body["plan"]["steps"]] == ["execute_goal"]
    assert body["plan"]["steps"][0]["objective"] == "Tidy the docs folder"
    assert body["planner_diagnostics"]["fallback_reason"] == reason
    assert body["plan"]["confidence"] == "low"


async def test_a_provider_failure_falls_back_too(
    client: httpx.AsyncClient, fake_model: Any
) -> None:
    fake_model.enqueue(Turn.failure(401))
    body = (
        await client.post("/workflow-plans/preview", json={"prompt": "Tidy the docs folder"})
    ).json()
    assert body["planner_diagnostics"]["fallback_reason"] == "provider_error"
    assert "sk-test-key" not in json.dumps(body)


async def test_a_model_that_does_not_answer_in_time_falls_back(
    model_settings: svc.Settings, fake_model: Any, autojump_clock: Any
) -> None:
    settings = model_settings.model_copy(update={"workflow_planner_timeout_ms": 30_000})
    held = trio.Event()
    fake_model.enqueue(build(gate=held))
    async with svc.open_engine(settings) as engine:
        before = trio.current_time()
        body = await planner_of(engine).preview(PlanRequest(prompt="Tidy the docs folder"))
        waited = trio.current_time() - before
        held.set()
    assert body["planner_diagnostics"]["fallback_reason"] == "planner_timeout"
    assert [s["step_id"] for s in body["plan"]["steps"]] == ["execute_goal"]
    assert 30 <= waited < 31


async def test_clarify_returns_the_question(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(
        Turn.reply(
            json.dumps(
                {
                    "action": "clarify",
                    "assistant_text": "Which repository?",
                    "clarifier": {
                        "field": "repository",
                        "question": "Which repository?",
                        "options": [{"id": "a", "label": "api"}],
                    },
                }
            )
        )
    )
    body = (
        await client.post(
            "/workflow-plans/chat/start", json={"prompt": "Watch the repo", "progressId": "p-1"}
        )
    ).json()
    await engine.events.flush()
    phases = [
        e.properties["phase"]
        for e in await engine.events.replay(EventFilter(topic="workflows"))
        if e.type == "workflow.plan.progress" and e.properties["progressID"] == "p-1"
    ]
    assert phases == ["drafting", "drafted"]
    assert body["clarifier"] == {
        "field": "repository",
        "question": "Which repository?",
        "options": [{"id": "a", "label": "api"}],
    }
    assert body["assistant_message"]["text"] == "Which repository?"
    assert [m["role"] for m in body["conversation"]["messages"]] == ["user", "assistant"]


async def test_bad_requests_name_the_field(client: httpx.AsyncClient) -> None:
    cases = [
        ("/workflow-plans/preview", {"prompt": " "}, "prompt"),
        ("/workflow-plans/preview", {}, "prompt"),
        (
            "/workflow-plans/chat/start",
            {"prompt": "x", "workspaceRoot": "relative"},
            "workspace_root",
        ),
        (
            "/workflow-plans/preview",
            {"prompt": "x", "schedule": {"type": "weekly"}},
            "schedule.type",
        ),
        ("/workflow-plans/chat/message", {"planId": "p"}, "message"),
        ("/workflow-plans/apply", {}, "plan_id"),
        (
            "/workflow-plans/apply",
            {"plan_id": "p", "idempotency_key": "k" * 257},
            "idempotency_key",
        ),
        ("/workflow-plans/import/preview", {"bundle": "nope"}, "bundle"),
    ]
    for path, body, field in cases:
        response = await client.post(path, json=body)
        assert response.status_code == 400, (path, response.text)
        assert response.json()["field"] == field, (path, response.json())
    missing = await client.post(
        "/workflow-plans/chat/message", json={"plan_id": "nope", "message": "hi"}
    )
    assert missing.status_code == 404 and missing.json()["code"] == "WORKFLOW_PLAN_NOT_FOUND"
    assert (await client.get("/workflow-plans/nope")).status_code == 404


async def test_chat_revises_the_plan_and_reports_the_replay(
    client: httpx.AsyncClient, fake_model: Any, workspace: Path
) -> None:
    started = await start_chat(client, fake_model, workspace)
    plan_id = started["plan"]["plan_id"]
    assert started["conversation"]["plan_id"] == plan_id
    revised_plan = copy.deepcopy(PLAN)
    revised_plan["steps"].append(
        {
            "step_id": "post_link",
            "objective": "Post the digest link to #eng",
            "agent_role": "notifier",
            "depends_on": ["write_digest"],
        }
    )
    fake_model.enqueue(
        Turn.reply(
            json.dumps(
                {
                    "action": "revise",
                    "assistant_text": "Added a notify step.",
                    "change_summary": ["added step post_link"],
                    "plan": revised_plan,
                }
            )
        )
    )
    body = (
        await client.post(
            "/workflow-plans/chat/message",
            json={"planId": plan_id, "message": "Also post the link to #eng"},
        )
    ).json()
    assert body["plan_revision"] == 2 and body["plan"]["plan_id"] == plan_id
    assert [s["step_id"] for s in body["plan"]["steps"]][-1] == "post_link"
    assert body["change_summary"] == ["added step post_link"]
    assert body["assistant_message"]["text"] == "Added a notify step."
    replay = body["plan_package_replay"]
    assert replay["compatible"] is True and replay["next_plan_revision"] == 2
    assert "steps.main::post_link" in [d["path"] for d in replay["diff_summary"]]
    assert [m["role"] for m in body["conversation"]["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    revision_prompt = fake_model.requests[1].body["messages"][-1]["content"]
    assert '"collect_issues"' in revision_prompt and "Also post the link to #eng" in revision_prompt

    fake_model.enqueue(
        Turn.reply(json.dumps({"action": "keep", "assistant_text": "It runs hourly."}))
    )
    kept = (
        await client.post(
            "/workflow-plans/chat/message",
            json={"plan_id": plan_id, "message": "How often does it run?"},
        )
    ).json()
    assert kept["plan_revision"] == 2 and kept["change_summary"] == []

    reset = (await client.post("/workflow-plans/chat/reset", json={"plan_id": plan_id})).json()
    assert reset["plan_revision"] == 1 and len(reset["plan"]["steps"]) == 2


async def test_apply_creates_an_automation_v2(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    plan_id = (await start_chat(client, fake_model, workspace))["plan"]["plan_id"]
    response = await client.post(
        "/workflow-plans/apply",
        json={"planId": plan_id, "creatorId": "ana", "idempotencyKey": "apply-1"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    automation = body["automation"]
    assert (
        body["ok"] is True
        and automation["status"] == "active"
        and automation["name"] == "Issue digest"
    )
    assert automation["creator_id"] == "ana"
    assert (
        automation["schedule"]["type"] == "interval"
        and automation["schedule"]["interval_seconds"] == 3600
    )
    assert [n["node_id"] for n in automation["flow"]["nodes"]] == ["collect_issues", "write_digest"]
    assert {a["agent_id"] for a in automation["agents"]} == {"agent_researcher", "agent_writer"}
    materialization = body["approved_plan_materialization"]
    assert (
        materialization["automation_id"] == automation["automation_id"]
        and materialization["plan_revision"] == 1
    )
    stored = await engine.automations.get_v2(automation["automation_id"])
    assert stored is not None and stored.spec["metadata"]["workflow_plan_id"] == plan_id

    replayed = (
        await client.post(
            "/workflow-plans/apply", json={"plan_id": plan_id, "idempotency_key": "apply-1"}
        )
    ).json()
    assert (
        replayed["replayed"] is True
        and replayed["automation"]["automation_id"] == automation["automation_id"]
    )
    applied = await wait_for_event(engine, "workflow.plan.applied")
    assert applied.properties["automationID"] == automation["automation_id"]

    # The same plan drafted again is recognised and reused, not duplicated.
    again_id = (await start_chat(client, fake_model, workspace))["plan"]["plan_id"]
    overlap = (await client.get(f"/workflow-plans/{again_id}")).json()["overlap_analysis"]
    assert overlap["decision"] == "reuse" and overlap["matched_plan_id"] == plan_id
    reused = (await client.post("/workflow-plans/apply", json={"plan_id": again_id})).json()
    assert reused["approved_plan_materialization"]["created"] is False
    assert reused["automation"]["automation_id"] == automation["automation_id"]


async def test_apply_as_draft_and_by_an_agent(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    plan_id = (await start_chat(client, fake_model, workspace))["plan"]["plan_id"]
    body = (
        await client.post(
            "/workflow-plans/apply",
            json={"plan_id": plan_id, "materialize_as_draft": True},
            headers={"x-svc-agent-id": "agent-9"},
        )
    ).json()
    assert body["automation"]["status"] == "draft" and body["automation"]["creator_type"] == "agent"
    assert body["automation"]["creator_id"] == "agent-9"


async def test_apply_accepts_a_plan_body(client: httpx.AsyncClient, workspace: Path) -> None:
    body = (
        await client.post(
            "/workflow-plans/apply",
            json={"plan": {**PLAN, "workspace_root": str(workspace), "original_prompt": "digest"}},
        )
    ).json()
    assert body["automation"]["flow"]["nodes"][1]["input_refs"] == [
        {"from_step_id": "collect_issues", "alias": "issues"}
    ]
    bad = await client.post(
        "/workflow-plans/apply",
        json={"plan": {"steps": [{"step_id": "a", "objective": "x", "depends_on": ["zzz"]}]}},
    )
    assert bad.status_code == 400 and bad.json()["field"] == "plan.steps[0].depends_on"


async def test_import_preview_then_import_stages_the_schedule(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    bundle = (await start_chat(client, fake_model, workspace))["plan_package_bundle"]
    count_before = len(engine.automations.v2.all_automations())

    preview = (
        await client.post(
            "/workflow-plans/import/preview", json={"bundle": bundle, "creatorId": "ben"}
        )
    ).json()
    assert preview["ok"] is True and preview["persisted"] is False
    # Transform log entries are objects (clients validate each as one).
    log = preview["import_transform_log"]
    assert all(isinstance(e, dict) and e["kind"] and e["message"] for e in log)
    assert "schedule_staged" in {e["kind"] for e in log}
    assert preview["import_validation"]["compatible"] is True
    assert (
        preview["plan"]["schedule"]["type"] == "manual"
        and preview["staged_schedule"]["interval_seconds"] == 3600
    )
    assert (
        preview["summary"]["step_count"] == 2
        and preview["plan_package_preview"]["owner"]["owner_id"] == "ben"
    )

    tampered = copy.deepcopy(bundle)
    tampered["plan"]["routine_graph"][0]["steps"].append(
        {"step_id": "exfiltrate", "objective": "x"}
    )
    refused = await client.post("/workflow-plans/import/preview", json={"bundle": tampered})
    assert (
        refused.status_code == 400 and refused.json()["code"] == "WORKFLOW_PLAN_IMPORT_INCOMPATIBLE"
    )
    assert refused.json()["import_validation"]["compatible"] is False
    malformed = copy.deepcopy(bundle)
    malformed["plan"]["routine_graph"][0]["steps"] = 5
    refused = await client.post("/workflow-plans/import", json={"bundle": malformed})
    assert (
        refused.status_code == 400
        and refused.json()["field"] == "bundle.plan.routine_graph[0].steps"
    )
    assert refused.json()["import_validation"]["compatible"] is False

    imported = (
        await client.post(
            "/workflow-plans/import",
            json={"bundle": bundle, "project_slug": "team", "title": "Imported digest"},
        )
    ).json()
    session = imported["session"]
    assert imported["persisted"] is True and session["source_kind"] == "imported_bundle"
    assert (
        session["schedule_state"] == "staged" and session["staged_schedule"]["type"] == "interval"
    )
    assert session["draft"]["current_plan"]["title"] == "Imported digest"
    assert len(engine.automations.v2.all_automations()) == count_before  # nothing became runnable
    again = (
        await client.post("/workflow-plans/import", json={"bundle": bundle, "project_slug": "team"})
    ).json()
    assert again["existing"] is True and again["session"]["session_id"] == session["session_id"]
    listed = (await client.get("/workflow-plans/sessions", params={"project_slug": "team"})).json()
    assert [s["session_id"] for s in listed["sessions"]] == [session["session_id"]]

    applied = (
        await client.post(
            "/workflow-plans/apply",
            json={"plan_id": session["current_plan_id"], "overlap_decision": "new"},
        )
    ).json()
    assert applied["automation"]["schedule"]["interval_seconds"] == 3600
    assert applied["approved_plan_materialization"]["schedule_source"] == "staged_import"
    after = (await client.get(f"/workflow-plans/sessions/{session['session_id']}")).json()[
        "session"
    ]
    assert after["schedule_state"] == "applied"
    assert after["published_automation_id"] == applied["automation"]["automation_id"]


async def test_a_similar_plan_needs_an_overlap_decision(
    client: httpx.AsyncClient, fake_model: Any, workspace: Path
) -> None:
    first = (await start_chat(client, fake_model, workspace))["plan"]["plan_id"]
    await client.post("/workflow-plans/apply", json={"plan_id": first})
    daily = {**PLAN, "schedule": {"type": "cron", "cron_expression": "0 8 * * *"}}
    fake_model.enqueue(build(daily))
    second = (
        await client.post(
            "/workflow-plans/chat/start",
            json={
                "prompt": "Every hour, summarise new issues into digest.md",
                "workspaceRoot": str(workspace),
            },
        )
    ).json()
    assert second["overlap_analysis"]["match_layer"] == "semantic"
    refused = await client.post(
        "/workflow-plans/apply", json={"plan_id": second["plan"]["plan_id"]}
    )
    assert (
        refused.status_code == 409
        and refused.json()["code"] == "WORKFLOW_PLAN_OVERLAP_CONFIRMATION_REQUIRED"
    )
    assert refused.json()["overlap_analysis"]["matched_plan_id"] == first
    forked = (
        await client.post(
            "/workflow-plans/apply",
            json={"plan_id": second["plan"]["plan_id"], "overlapDecision": "fork"},
        )
    ).json()
    assert forked["approved_plan_materialization"]["created"] is True
    assert forked["automation"]["schedule"]["cron_expression"] == "0 8 * * *"
