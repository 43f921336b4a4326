"""Cross-tenant grants (issue, inbound, revoke) and tenant policies (enforced by search)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from svc import Engine

from .conftest import ADMIN_OTHER_TENANT, AGENT, binding_body, skeleton_bodies

GLOBEX_ADMIN = {
    "x-svc-org-id": "globex",
    "x-svc-workspace-id": "ops",
    "x-svc-actor-id": "gina",
    "x-svc-actor-roles": "admin",
}
ACME_VIEWER = {**ADMIN_OTHER_TENANT, "x-svc-actor-id": "vic", "x-svc-actor-roles": "viewer"}


def _as(actor: str) -> dict[str, str]:
    return {**GLOBEX_ADMIN, "x-svc-actor-id": actor, "x-svc-actor-roles": "member"}


def _grant(engine: Engine, **extra: Any) -> dict[str, Any]:
    return {
        "grant_id": "share-finance",
        "audience": {"org_id": "globex", "workspace_id": "ops"},
        "subject": {"kind": "human_user", "id": "carol"},
        "resource_kind": "document_collection",
        "resource_id": "finance-drive",
        "permissions": ["read"],
        "data_classes": ["confidential"],
        "expires_at_ms": engine.clock.now_ms() + 86_400_000,
        "reason": "audit support",
        **extra,
    }


async def test_a_grant_is_issued_seen_inbound_by_its_audience_and_revoked(
    client: httpx.AsyncClient, engine: Engine
) -> None:
    base = "/enterprise/cross-tenant-grants"
    local = await client.post(base, json=_grant(engine))
    assert local.status_code == 403
    assert local.json()["code"] == "ENTERPRISE_CROSS_TENANT_CONTEXT_REQUIRED"
    viewer = await client.post(base, json=_grant(engine), headers=ACME_VIEWER)
    assert viewer.status_code == 403 and viewer.json()["code"] == "ENTERPRISE_ADMIN_REQUIRED"
    to_self = await client.post(
        base,
        json=_grant(engine, audience={"org_id": "acme", "workspace_id": "research"}),
        headers=ADMIN_OTHER_TENANT,
    )
    assert to_self.json()["code"] == "ENTERPRISE_CROSS_TENANT_AUDIENCE_IS_ISSUER"
    no_expiry = await client.post(
        base, json=_grant(engine, expires_at_ms=None), headers=ADMIN_OTHER_TENANT
    )
    assert no_expiry.json()["code"] == "ENTERPRISE_CROSS_TENANT_EXPIRY_INVALID"

    issued = await client.post(
        base,
        json=_grant(engine, organization_id="globex"),  # the resource stays the issuer's
        headers=ADMIN_OTHER_TENANT,
    )
    assert issued.status_code == 200, issued.text
    grant = issued.json()["cross_tenant_grants"][0]
    assert grant["state"] == "active" and len(grant["claims_hash"]) == 64
    assert grant["issuer"] == {"org_id": "acme", "workspace_id": "research"}
    assert grant["resource"]["organization_id"] == "acme"
    again = await client.post(base, json=_grant(engine), headers=ADMIN_OTHER_TENANT)
    assert again.status_code == 409

    # Issued: visible to the issuer only; inbound: visible to the audience.
    assert (await client.get(base, headers=ADMIN_OTHER_TENANT)).json()["count"] == 1
    assert (await client.get(base, headers=GLOBEX_ADMIN)).json()["count"] == 0
    assert (await client.get(f"{base}/share-finance", headers=GLOBEX_ADMIN)).status_code == 404
    inbound = (await client.get(f"{base}/inbound", headers=GLOBEX_ADMIN)).json()
    assert [g["grant_id"] for g in inbound["cross_tenant_grants"]] == ["share-finance"]
    assert (await client.get(f"{base}/inbound", headers=_as("carol"))).json()["count"] == 1
    assert (await client.get(f"{base}/inbound", headers=_as("dave"))).json()["count"] == 0
    assert (await client.get(f"{base}/inbound", headers=ADMIN_OTHER_TENANT)).json()["count"] == 0

    not_theirs = await client.post(f"{base}/share-finance/revoke", json={}, headers=GLOBEX_ADMIN)
    assert not_theirs.status_code == 404
    revoked = await client.post(
        f"{base}/share-finance/revoke", json={"reason": "audit done"}, headers=ADMIN_OTHER_TENANT
    )
    assert revoked.status_code == 200, revoked.text
    assert revoked.json()["cross_tenant_grants"][0]["state"] == "revoked"
    twice = await client.post(f"{base}/share-finance/revoke", headers=ADMIN_OTHER_TENANT)
    assert twice.json()["code"] == "ENTERPRISE_CROSS_TENANT_GRANT_ALREADY_REVOKED"
    assert (await client.get(f"{base}/inbound", headers=GLOBEX_ADMIN)).json()["count"] == 0
    tombstones = (await client.get(f"{base}/revocations", headers=GLOBEX_ADMIN)).json()
    assert [t["reason"] for t in tombstones["revocations"]] == ["audit done"]


async def test_a_data_class_policy_caps_memory_search_until_disabled(
    client: httpx.AsyncClient, allowed_root: Path
) -> None:
    (allowed_root / "budget.md").write_text("forecast figures\n")
    for path, payload in skeleton_bodies():
        assert (await client.post(path, json=payload)).status_code == 200
    assert (
        await client.post("/enterprise/source-bindings", json=binding_body(allowed_root))
    ).status_code == 200
    assert (
        await client.post("/enterprise/source-bindings/finance-notes/import", json={})
    ).status_code == 200

    async def search() -> dict[str, Any]:
        reply = await client.post(
            "/enterprise/memory/search", json={"query": "forecast", "member_id": "bob"}
        )
        assert reply.status_code == 200, reply.text
        return reply.json()

    assert (await search())["count"] == 1
    body = {
        "policy_id": "no-confidential",
        "display_name": "No confidential data in prompts",
        "kind": "data_class_access",
        "rules": {"denied_data_classes": ["confidential"]},
    }
    refused = await client.post("/enterprise/policies", json=body, headers=AGENT)
    assert refused.status_code == 403 and refused.json()["code"] == "ENTERPRISE_ADMIN_REQUIRED"
    saved = await client.post("/enterprise/policies", json=body)
    assert saved.status_code == 200, saved.text
    assert saved.json()["policies"][0]["version"] == 1
    capped = await search()
    assert capped["count"] == 0 and capped["policy_denied_data_classes"] == ["confidential"]
    decision = await client.post(
        "/enterprise/policies/evaluate", json={"data_class": "confidential"}
    )
    assert decision.json()["decision"] == "deny"
    assert decision.json()["matched_policies"][0]["policy_id"] == "no-confidential"

    # Another tenant sees none of it.
    assert (await client.get("/enterprise/policies", headers=ADMIN_OTHER_TENANT)).json()[
        "count"
    ] == 0
    hidden = await client.get("/enterprise/policies/no-confidential", headers=ADMIN_OTHER_TENANT)
    assert hidden.status_code == 404 and hidden.json()["code"] == "ENTERPRISE_POLICY_NOT_FOUND"

    disabled = await client.patch(
        "/enterprise/policies/no-confidential", json={"state": "disabled"}
    )
    assert disabled.status_code == 200, disabled.text
    assert disabled.json()["policies"][0]["version"] == 2
    assert disabled.json()["policies"][0]["state"] == "disabled"
    assert (await search())["count"] == 1
    bad = await client.post(
        "/enterprise/policies", json={**body, "rules": {"denied_data_classes": "confidential"}}
    )
    assert bad.status_code == 400
