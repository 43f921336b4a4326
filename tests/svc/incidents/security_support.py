"""A realistic engine configuration for the security and governance tests.

Routines and automations v2 with tool allowlists, two MCP connectors carrying secret
headers, destinations of several kinds, routes, projects with log sources, an intake
key, a pending approval and some policy decisions. ``SECRET`` is planted in every
place a secret could leak from; no security response may contain it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

import svc
from tests.svc.automations.support import agent, node, v2_spec

from .support import SECRET, configure, intake_key, project, report

ENV = {"SVC_WEBHOOK_SECRET": SECRET}


def destinations(*, tracker_approval: bool = True) -> list[dict[str, Any]]:
    return [
        {
            "destination_id": "ops-hook",
            "name": "Ops webhook",
            "kind": "webhook",
            "webhook_url": f"https://hooks.example.com/in/{SECRET}",
            "webhook_secret_ref": "env:SVC_WEBHOOK_SECRET",
            "require_approval": True,
            "config": {"allowed_hosts": ["hooks.example.com"]},
        },
        {
            "destination_id": "telemetry",
            "name": "Telemetry file",
            "kind": "telemetry",
            "telemetry_path": "telemetry/incidents.jsonl",
        },
        {
            "destination_id": "memory",
            "name": "Internal memory",
            "kind": "internal_memory",
            "memory_category": "safety_risk",
        },
        {
            "destination_id": "tracker",
            "name": "Tracker",
            "kind": "linear_issue",
            "mcp_server": "tracker-mcp",
            "linear_team": "OPS",
            "require_approval": tracker_approval,
        },
    ]


def routes() -> list[dict[str, Any]]:
    return [
        {
            "route_id": "sec-high",
            "name": "Security high",
            "priority": 10,
            "destination_ids": ["memory"],
            "approval_policy": "always",
            "match_risk_levels": ["high", "critical"],
        },
        {
            "route_id": "everything",
            "name": "Everything else",
            "destination_ids": ["telemetry"],
        },
    ]


def projects(log_path: Path) -> list[dict[str, Any]]:
    return [
        project(
            "billing",
            workspace_root=str(log_path.parent),
            tenant_id="acme",
            workspace_id="payments",
            allowed_destination_ids=["telemetry", "tracker"],
            data_readiness={
                "source_owner": "payments-team",
                "data_classification": "internal",
                "legal_basis": f"contract {SECRET}",
            },
            log_sources=[{"source_id": "app", "path": log_path.name, "format": "json"}],
        )
    ]


async def add_mcp_servers(client: httpx.AsyncClient) -> None:
    for name, headers in (
        ("tracker-mcp", {"Authorization": f"Bearer {SECRET}"}),
        ("files-mcp", {"x-api-key": SECRET}),
    ):
        body = {
            "name": name,
            "transport": "http://127.0.0.1:9/mcp",
            "headers": headers,
            "enabled": False,
        }
        response = await client.post("/mcp", json=body)
        assert response.status_code == 200, response.text


async def add_automations(client: httpx.AsyncClient) -> None:
    routine = {
        "routine_id": "digest",
        "name": "Daily digest",
        "schedule": {"interval_seconds": {"seconds": 3600}},
        "entrypoint": "mission.default",
        "args": {"prompt": f"Summarise with key {SECRET}"},
        "allowed_tools": ["read", "glob"],
        "output_targets": [],
    }
    response = await client.post("/routines", json=routine)
    assert response.status_code == 200, response.text
    spec = v2_spec(
        [node("collect", "worker")],
        [agent("worker", allow=["read", "grep"], deny=["bash"], servers=["files-mcp"])],
        name="collector",
        metadata={"note": SECRET},
    )
    response = await client.post("/automations/v2", json=spec)
    assert response.status_code == 200, response.text


async def build_realistic(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path, **config: Any
) -> dict[str, Any]:
    await add_mcp_servers(client)
    await add_automations(client)
    log_path = tmp_path / "app.log"
    log_path.write_text("")
    body = {
        "destinations": destinations(),
        "routes": routes(),
        "monitored_projects": projects(log_path),
        "default_destination_ids": ["telemetry"],
        **config,
    }
    saved = await configure(client, **body)
    await intake_key(client)
    # A high-risk report routed to the approval route leaves a pending approval (and the
    # publish gate's approval_required decision).
    response = await client.post(
        "/incident-monitor/report",
        json={"report": report("Card data exposed", risk_level="high", detail=SECRET)},
    )
    assert response.status_code == 200, response.text
    draft = response.json()["draft"]
    await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/publish")
    record = engine.incidents.decisions.record
    record(domain="tool_policy", effect="allow", subject="read", actor_id="worker")
    record(domain="tool_policy", effect="deny", subject="bash", code="TOOL_NOT_ALLOWED")
    record(
        domain="spawn_gate",
        effect="approval_required",
        subject="role:worker",
        approval_id="spawn_1",
    )
    return saved
