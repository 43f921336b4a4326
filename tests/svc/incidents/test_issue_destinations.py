"""Code-host and tracker issues through MCP servers built with the official SDK."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

import svc
from svc import Settings
from tests.fakes.issue_servers import code_host_server, tracker_server
from tests.fakes.mcp_servers import open_mcp_server

from .support import configure, report


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings(mcp_startup_backoff_ms=20, mcp_startup_attempts=50)


async def connect(engine: svc.Engine, name: str, url: str) -> None:
    from svc.mcp import ConnectorInput

    await engine.mcp.add(ConnectorInput(name=name, transport=url))
    assert (await engine.mcp.connect(name))["ok"]


async def test_code_host_issue_created_then_commented(
    engine: svc.Engine, client: httpx.AsyncClient
) -> None:
    fake = code_host_server()
    async with open_mcp_server(fake) as server:
        await connect(engine, "gh", server.url)
        await configure(client, mcp_server="gh")  # the synthesized legacy-github destination
        first = (await client.post("/incident-monitor/report", json={"report": report()})).json()
        published = await client.post(
            f"/incident-monitor/drafts/{first['draft']['draft_id']}/publish"
        )
        assert published.status_code == 200, published.text
        assert published.json()["action"] == "create_issue"
        assert published.json()["issue_number"] == 1
        assert published.json()["draft"]["status"] == "github_issue_created"
        assert fake.issues[0]["title"] == "Nightly export failed"  # type: ignore[attr-defined]
        # the same failure from another report: a new draft, same fingerprint -> comment
        other = (
            await client.post(
                "/incident-monitor/report",
                json={"report": report(fingerprint=first["draft"]["fingerprint"], source="ci")},
            )
        ).json()
        assert other["draft"]["draft_id"] == first["draft"]["draft_id"]
        await client.post("/incident-monitor/drafts/bulk-delete", json={"all": True})
        again = (
            await client.post(
                "/incident-monitor/report",
                json={"report": report(fingerprint=first["draft"]["fingerprint"], detail="x")},
            )
        ).json()
        commented = await client.post(
            f"/incident-monitor/drafts/{again['draft']['draft_id']}/publish"
        )
        assert commented.json()["action"] == "comment_issue", commented.text
        assert len(fake.comments) == 1  # type: ignore[attr-defined]
        status = (await client.get("/incident-monitor/status")).json()["status"]
        assert status["required_capabilities"]["github_create_issue"] is True


async def test_tracker_issue_created_through_mcp(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    fake = tracker_server()
    async with open_mcp_server(fake) as server:
        await connect(engine, "lin", server.url)
        await configure(
            client,
            destinations=[
                {
                    "destination_id": "lin",
                    "name": "Tracker",
                    "kind": "linear_issue",
                    "mcp_server": "lin",
                    "linear_team": "ENG",
                    "linear_project": "Ops",
                },
                {
                    "destination_id": "tool",
                    "name": "Tool",
                    "kind": "mcp_tool",
                    "mcp_server": "lin",
                    "mcp_tool": "create_comment",
                    "config": {
                        "allow_publish": True,
                        "arguments": {"issueId": "$draft.fingerprint", "body": "$draft.title"},
                    },
                },
            ],
            default_destination_ids=["lin", "tool"],
        )
        draft = (await client.post("/incident-monitor/report", json={"report": report()})).json()
        published = await client.post(
            f"/incident-monitor/drafts/{draft['draft']['draft_id']}/publish"
        )
        assert published.status_code == 200, published.text
        actions = {o["destination_id"]: o["action"] for o in published.json()["outcomes"]}
        assert actions == {"lin": "create_issue", "tool": "call_mcp_tool"}
        assert fake.issues[0]["team"] == "ENG"  # type: ignore[attr-defined]
        assert fake.comments[0]["body"] == "Nightly export failed"  # type: ignore[attr-defined]
        assert len(published.json()["posts"]) == 2
