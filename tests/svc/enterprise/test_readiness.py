"""Readiness over loopback: attention until a skeleton exists, then ready; blocked by a
quarantine."""

from __future__ import annotations

from pathlib import Path

import httpx

from .conftest import binding_body, skeleton_bodies


def _status(body: dict, check: str) -> str:
    return next(c["status"] for c in body["checks"] if c["id"] == check)


async def test_readiness_moves_from_attention_to_ready_then_blocked(
    client: httpx.AsyncClient, allowed_root: Path
) -> None:
    first = await client.get("/enterprise/readiness")
    assert first.status_code == 200
    body = first.json()
    assert body["overall_status"] == "attention"
    assert body["tenant_context"] == {
        "org_id": "local",
        "workspace_id": "local",
        "source": "local_implicit",
    }
    assert body["request_principal"] == {"source": "local_control_panel"}
    assert [c["id"] for c in body["checks"]] == [
        "tenant_context",
        "governance_skeleton",
        "connectors",
        "source_bindings",
        "quarantine",
        "approvals",
        "memory_context_policy",
    ]
    assert _status(body, "governance_skeleton") == "attention"
    assert body["checks"][1]["recommended_action"]

    for path, payload in skeleton_bodies():
        saved = await client.post(path, json=payload)
        assert saved.status_code == 200, saved.text
    (allowed_root / "plan.md").write_text("# Budget plan\nquarterly figures\n")
    bound = await client.post("/enterprise/source-bindings", json=binding_body(allowed_root))
    assert bound.status_code == 200, bound.text

    ready = (await client.get("/enterprise/readiness")).json()
    assert ready["overall_status"] == "ready", ready["checks"]
    assert ready["counts"]["org_units"] == 1
    assert ready["counts"]["connectors_by_state"] == {"active": 1}
    assert all(c["recommended_action"] is None for c in ready["checks"])

    (allowed_root / "keys.md").write_text("deploy with api_key=sk-live-abcdefghijklmnop1234\n")
    imported = await client.post("/enterprise/source-bindings/finance-notes/import", json={})
    assert imported.status_code == 200, imported.text
    assert imported.json()["job"]["counts"]["new_quarantines"] == 1

    blocked = (await client.get("/enterprise/readiness")).json()
    assert blocked["overall_status"] == "blocked"
    assert _status(blocked, "quarantine") == "blocked"
    assert blocked["counts"]["pending_quarantines"] == 1
