"""Coder projects bound to a repohost board served by an MCP server (official SDK).

Inbox, schema drift after the board changes, intake creating exactly one run per
item, and the item's status following the run.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import trio

from svc import Engine, Settings
from tests.fakes.mcp_servers import open_mcp_server
from tests.fakes.project_board import ProjectBoard
from tests.helpers import wait_for_event


@pytest.fixture
def settings(model_settings: Settings) -> Settings:
    return model_settings


async def _bind(client: httpx.AsyncClient, workspace: Path, url: str) -> httpx.Response:
    added = await client.post("/mcp", json={"name": "board", "transport": url, "enabled": True})
    assert added.status_code < 300, added.text
    assert (await client.post("/mcp/board/connect")).status_code == 200
    return await client.put(
        "/coder/projects/app/bindings",
        json={
            "repo_binding": {
                "workspace_id": "ws-app",
                "workspace_root": str(workspace),
                "repo_slug": "acme/app",
            },
            "repohost_project_binding": {"owner": "acme", "project_number": 7},
        },
    )


async def test_bindings_need_a_repo_binding_and_a_connected_board(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    assert (await client.get("/coder/projects/app/bindings")).json() == {"binding": None}
    missing = await client.put(
        "/coder/projects/app/bindings", json={"repohost_project_binding": {"owner": "a"}}
    )
    assert missing.status_code == 400
    assert missing.json()["code"] == "CODER_REPO_BINDING_REQUIRED"
    no_board = await client.put(
        "/coder/projects/app/bindings",
        json={
            "repo_binding": {
                "workspace_id": "w",
                "workspace_root": str(workspace),
                "repo_slug": "acme/app",
            },
            "repohost_project_binding": {"owner": "acme", "project_number": 7},
        },
    )
    assert no_board.status_code == 409
    assert no_board.json()["code"] == "CODER_REPOHOST_PROJECT_MCP_UNAVAILABLE"
    repo_only = await client.put(
        "/coder/projects/app/bindings",
        json={"workspace_id": "w", "workspace_root": str(workspace), "repo_slug": "acme/app"},
    )
    assert repo_only.status_code == 200
    intake = await client.post(
        "/coder/projects/app/repohost-project/intake", json={"project_item_id": "PVTI_1"}
    )
    assert intake.status_code == 409
    assert intake.json()["code"] == "CODER_REPOHOST_PROJECT_BINDING_REQUIRED"


async def test_inbox_drift_intake_and_status_following_the_run(
    client: httpx.AsyncClient, engine: Engine, workspace: Path
) -> None:
    board = ProjectBoard()
    board.add_issue("PVTI_1", 12, "Fix the login redirect")
    board.add_issue("PVTI_2", 13, "Already underway", status="In Progress")
    board.add_draft("PVTI_3", "A draft note")
    async with open_mcp_server(board.server) as server:
        bound = await _bind(client, workspace, server.url)
        assert bound.status_code == 200, bound.text
        project = bound.json()["binding"]["repohost_project_binding"]
        assert project["mcp_server"] == "board"
        assert project["status_mapping"]["todo"] == {"id": "opt_todo", "name": "Todo"}
        assert len(project["schema_fingerprint"]) == 64

        inbox = (await client.get("/coder/projects/app/repohost-project/inbox")).json()
        assert inbox["schema_drift"] is False
        by_id = {i["project_item_id"]: i for i in inbox["items"]}
        assert by_id["PVTI_1"]["actionable"] is True
        assert by_id["PVTI_2"]["actionable"] is False
        assert by_id["PVTI_3"]["unsupported_reason"] == "unsupported_item_type"
        assert all(i["remote_sync_state"] == "in_sync" for i in inbox["items"])

        not_todo = await client.post(
            "/coder/projects/app/repohost-project/intake", json={"project_item_id": "PVTI_2"}
        )
        assert not_todo.status_code == 409
        assert not_todo.json()["code"] == "CODER_REPOHOST_PROJECT_ITEM_NOT_TODO"
        assert not_todo.json()["status_name"] == "In Progress"

        replies: list[dict] = []

        async def take() -> None:
            reply = await client.post(
                "/coder/projects/app/repohost-project/intake",
                json={"project_item_id": "PVTI_1", "source_client": "test"},
            )
            assert reply.status_code == 200, reply.text
            replies.append(reply.json())

        async with trio.open_nursery() as nursery:
            nursery.start_soon(take)
            nursery.start_soon(take)
        created = [r for r in replies if not r["deduped"]]
        assert len(created) == 1 and len(replies) == 2
        coder_run = created[0]["coder_run"]
        assert coder_run["repohost_project_ref"]["issue_number"] == 12
        assert coder_run["remote_sync_state"] == "in_sync"
        assert "#12" in coder_run["objective"]
        assert created[0]["run"]["runID"] == coder_run["run_id"]

        # The run started (In Progress) and the echo model finished it (In Review).
        await wait_for_event(
            engine,
            "coder.run.updated",
            where=lambda e: (
                e.properties["coder_run_id"] == coder_run["coder_run_id"]
                and e.properties["status"] == "completed"
            ),
        )
        assert board.status_of("PVTI_1") == "In Review"
        assert [u["option_id"] for u in board.updates] == ["opt_doing", "opt_review"]

        after = await client.post(
            "/coder/projects/app/repohost-project/intake", json={"project_item_id": "PVTI_1"}
        )
        assert after.status_code == 409  # no longer TODO: still one run for the item

        board.rename_option("Blocked", "On Hold")
        drifted = (await client.get("/coder/projects/app/repohost-project/inbox")).json()
        assert drifted["schema_drift"] is True
        assert drifted["live_schema_fingerprint"] != project["schema_fingerprint"]
        assert {i["remote_sync_state"] for i in drifted["items"]} == {"schema_drift"}
        linked = next(i for i in drifted["items"] if i["project_item_id"] == "PVTI_1")
        assert linked["run_state"] == "completed"
