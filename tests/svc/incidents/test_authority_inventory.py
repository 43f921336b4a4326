"""The authority inventory lists the runtime's authority and never a secret."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

import svc
from svc import Settings

from .security_support import ENV, build_realistic
from .support import SECRET

INVENTORY = "/incident-monitor/security/authority-inventory"


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings(env=ENV)


async def test_inventory_lists_everything_and_no_secret(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await build_realistic(engine, client, tmp_path)
    response = await client.get(INVENTORY)
    assert response.status_code == 200, response.text
    assert SECRET not in response.text
    body = response.json()
    inv = body["inventory"]
    assert body["scope"]["read_only"] is True
    assert body["scope"]["mutates_external_systems"] is False
    assert {d["destination_id"] for d in inv["destinations"]} == {
        "ops-hook",
        "telemetry",
        "memory",
        "tracker",
    }
    hook = next(d for d in inv["destinations"] if d["destination_id"] == "ops-hook")
    assert hook["webhook_url_present"] and hook["webhook_secret_ref_present"]
    assert hook["custom_config_keys"] == ["allowed_hosts"]
    assert [r["route_id"] for r in inv["routes"]] == ["sec-high", "everything"]
    assert {s["name"] for s in inv["mcp"]["servers"]} == {"tracker-mcp", "files-mcp"}
    tracker = next(s for s in inv["mcp"]["servers"] if s["name"] == "tracker-mcp")
    assert tracker["header_names"] == ["Authorization"]
    kinds = {a["kind"] for a in inv["automation_specs"]}
    assert kinds == {"routine", "automation_v2"}
    worker = next(a for a in inv["agents"] if a["agent_id"] == "worker")
    assert worker["tool_policy"] == {"allowlist": ["read", "grep"], "denylist": ["bash"]}
    assert worker["mcp_policy"]["allowed_servers"] == ["files-mcp"]
    assert {(s["project_id"], s["source_id"]) for s in inv["monitored_sources"]} == {
        ("billing", None),
        ("billing", "app"),
    }
    [key] = inv["scoped_intake_keys"]
    assert key["key_hash_present"] is True and "key_hash" not in key
    assert any(p["kind"] == "incident_draft" for p in inv["pending_approvals"])
    effects = {(d["domain"], d["effect"]) for d in inv["policy_decisions"]}
    assert ("publish_gate", "approval_required") in effects
    assert ("tool_policy", "deny") in effects
    assert body["counts"]["policy_decisions"] == len(inv["policy_decisions"])
    assert "incident_monitor_intake_key.key_hash" in body["sensitive_values"]["omitted_fields"]
    assert SECRET not in json.dumps(body)
