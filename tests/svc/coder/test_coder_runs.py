"""Coder runs: workflow steps in a session of the bound workspace, reports, memory, PRs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from svc import Engine, Settings
from tests.fakes.mcp_servers import open_mcp_server
from tests.fakes.project_board import ProjectBoard
from tests.helpers import wait_for_event

from .code_host import add_pull_requests
from .test_project_intake import _bind


@pytest.fixture
def settings(model_settings: Settings) -> Settings:
    return model_settings


async def _settled(engine: Engine, coder_run_id: str, status: str) -> None:
    await wait_for_event(
        engine,
        "coder.run.updated",
        where=lambda e: (
            e.properties["coder_run_id"] == coder_run_id and e.properties["status"] == status
        ),
    )


def _create_body(workspace: Path, mode: str, kind: str, number: int) -> dict[str, Any]:
    return {
        "workflow_mode": mode,
        "repo_binding": {
            "project_id": "app",
            "workspace_id": "ws-app",
            "workspace_root": str(workspace),
            "repo_slug": "acme/app",
        },
        "repohost_ref": {"kind": kind, "number": number},
        "source_client": "test",
    }


async def test_a_triage_run_steps_through_its_workflow_and_stores_its_reports(
    client: httpx.AsyncClient, engine: Engine, workspace: Path
) -> None:
    created = await client.post(
        "/coder/runs", json=_create_body(workspace, "issue_triage", "issue", 12)
    )
    assert created.status_code == 200, created.text
    run = created.json()["coder_run"]
    run_id = run["coder_run_id"]
    assert run["status"] == "queued" and run["workflow_mode"] == "issue_triage"
    assert [s["step_id"] for s in run["steps"]] == ["inspect", "reproduce", "summarize"]
    assert run["repo_binding"]["repo_slug"] == "acme/app"

    step = await client.post(f"/coder/runs/{run_id}/execute-next", json={})
    assert step.status_code == 200, step.text
    assert step.json()["coder_run"]["status"] == "running"
    assert step.json()["run"]["runID"] == step.json()["coder_run"]["run_id"]
    await _settled(engine, run_id, "queued")
    rest = await client.post(f"/coder/runs/{run_id}/execute-all", json={})
    assert rest.status_code == 200, rest.text
    await _settled(engine, run_id, "completed")
    got = (await client.get(f"/coder/runs/{run_id}")).json()["coder_run"]
    assert [s["status"] for s in got["steps"]] == ["completed"] * 3
    assert got["linked_context_run_id"]  # the session all steps ran in
    again = await client.post(f"/coder/runs/{run_id}/execute-next", json={})
    assert again.status_code == 409 and again.json()["code"] == "CODER_RUN_STATE_CONFLICT"

    report = await client.post(
        f"/coder/runs/{run_id}/triage-inspection-report",
        json={"summary": "the redirect drops the next parameter", "files": ["auth.py"]},
    )
    assert report.status_code == 200, report.text
    wrong = await client.post(f"/coder/runs/{run_id}/pr-review-summary", json={"summary": "x"})
    assert wrong.status_code == 409 and wrong.json()["code"] == "CODER_WORKFLOW_MODE_MISMATCH"
    summary = await client.post(
        f"/coder/runs/{run_id}/triage-summary",
        json={"summary": "login redirect loses the next parameter after sso"},
    )
    assert summary.status_code == 200, summary.text
    generated = summary.json()["generated_candidates"]
    assert generated[0]["kind"] == "triage_memory"

    artifacts = (await client.get(f"/coder/runs/{run_id}/artifacts")).json()
    types = [a["artifact_type"] for a in artifacts["artifacts"]]
    assert types == ["triage_inspection_report", "triage_summary", "memory_candidate"]
    assert all(a["path"].startswith(f"coder/{run_id}/") for a in artifacts["artifacts"])

    own = await client.post(
        f"/coder/runs/{run_id}/memory-candidates",
        json={"kind": "fix_pattern", "summary": "sso redirect keeps next", "payload": {"a": 1}},
    )
    assert own.status_code == 200, own.text
    listed = (await client.get(f"/coder/runs/{run_id}/memory-candidates")).json()
    assert listed["count"] == 2
    candidate_id = generated[0]["candidate_id"]
    promoted = await client.post(
        f"/coder/runs/{run_id}/memory-candidates/{candidate_id}/promote", json={}
    )
    assert promoted.status_code == 200, promoted.text
    assert promoted.json()["memory_id"]
    hits = (await client.get(f"/coder/runs/{run_id}/memory-hits?q=redirect")).json()
    assert [h["id"] for h in hits["hits"]] == [promoted.json()["memory_id"]]

    listed_runs = (await client.get("/coder/runs?workflow_mode=issue_triage")).json()
    assert [r["coder_run_id"] for r in listed_runs["runs"]] == [run_id]
    assert (await client.get("/coder/runs?repo_slug=other/repo")).json()["count"] == 0


async def test_a_fix_follows_on_waits_for_approval_and_opens_its_pull_request(
    client: httpx.AsyncClient, engine: Engine, workspace: Path
) -> None:
    board = ProjectBoard()
    opened = add_pull_requests(board)
    async with open_mcp_server(board.server) as server:
        assert (await _bind(client, workspace, server.url)).status_code == 200
        triage = (
            await client.post(
                "/coder/runs",
                json={"project_id": "app", "repohost_ref": {"kind": "issue", "number": 12}},
            )
        ).json()["coder_run"]
        fix = await client.post(
            f"/coder/runs/{triage['coder_run_id']}/follow-on-run",
            json={"workflow_mode": "issue_fix"},
        )
        assert fix.status_code == 200, fix.text
        fix_run = fix.json()["coder_run"]
        fix_id = fix_run["coder_run_id"]
        assert fix_run["parent_coder_run_id"] == triage["coder_run_id"]
        assert fix_run["repohost_ref"]["number"] == 12

        no_draft = await client.post(f"/coder/runs/{fix_id}/pr-submit", json={})
        assert no_draft.status_code == 409
        await client.post(f"/coder/runs/{fix_id}/execute-all", json={})
        await _settled(engine, fix_id, "awaiting_approval")
        await client.post(
            f"/coder/runs/{fix_id}/issue-fix-summary", json={"summary": "keep next on redirect"}
        )
        draft = await client.post(f"/coder/runs/{fix_id}/pr-draft", json={})
        assert draft.status_code == 200, draft.text
        assert "Fixes #12" in draft.json()["draft"]["body"]
        submitted = await client.post(f"/coder/runs/{fix_id}/pr-submit", json={})
        assert submitted.status_code == 200, submitted.text
        assert submitted.json()["pull_request"]["number"] == 100
        assert opened[0]["repo"] == "app" and opened[0]["head"] == f"coder/{fix_id}"
        assert submitted.json()["coder_run"]["pr_url"].endswith("/pull/100")

        approved = await client.post(f"/coder/runs/{fix_id}/approve", json={"reason": "lgtm"})
        assert approved.status_code == 200, approved.text
        assert approved.json()["coder_run"]["status"] == "completed"
        twice = await client.post(f"/coder/runs/{fix_id}/approve", json={"reason": ""})
        assert twice.status_code == 409

        cancelled = await client.post(
            f"/coder/runs/{triage['coder_run_id']}/cancel", json={"reason": "duplicate"}
        )
        assert cancelled.json()["coder_run"]["status"] == "cancelled"

        # The board routes answer under any `<host>-project` segment.
        inbox = await client.get("/coder/projects/app/somehost-project/inbox")
        assert inbox.status_code == 200, inbox.text
        assert (await client.get("/coder/projects/app/somehost/inbox")).status_code == 404


async def test_runs_validate_their_input(client: httpx.AsyncClient, workspace: Path) -> None:
    missing = await client.post("/coder/runs", json={"workflow_mode": "issue_triage"})
    assert missing.status_code == 400 and missing.json()["code"] == "CODER_REPO_BINDING_REQUIRED"
    bad_mode = await client.post("/coder/runs", json=_create_body(workspace, "deploy", "issue", 1))
    assert bad_mode.status_code == 400 and bad_mode.json()["field"] == "workflow_mode"
    wrong_kind = await client.post(
        "/coder/runs", json=_create_body(workspace, "pr_review", "issue", 1)
    )
    assert wrong_kind.status_code == 400
    assert (await client.get("/coder/runs/nope")).status_code == 404
