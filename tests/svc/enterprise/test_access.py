"""Tenant context and principals: cross-tenant invisibility, admin checks, error bodies."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from .conftest import ADMIN_OTHER_TENANT, AGENT, binding_body, skeleton_bodies

MUTATIONS = [
    ("POST", "/enterprise/org-units", {"unit_id": "u", "display_name": "U"}),
    ("POST", "/enterprise/org-unit-memberships", {"unit_id": "u", "member_id": "m"}),
    ("PATCH", "/enterprise/org-unit-memberships/m1", {"state": "disabled"}),
    (
        "POST",
        "/enterprise/org-unit-access-grants",
        {"unit_id": "u", "resource_kind": "file", "resource_id": "r"},
    ),
    ("PATCH", "/enterprise/org-unit-access-grants/g1", {"state": "disabled"}),
    ("POST", "/enterprise/connectors", {"connector_id": "c", "provider": "local_directory"}),
    ("PATCH", "/enterprise/connectors/c", {"state": "paused"}),
    ("POST", "/enterprise/connectors/c/credential-refs", {"credential_id": "x"}),
    ("PATCH", "/enterprise/connectors/c/credential-refs/x/rotate", {}),
    ("POST", "/enterprise/source-bindings", {"binding_id": "b"}),
    ("PATCH", "/enterprise/source-bindings/b", {"state": "disabled"}),
    ("POST", "/enterprise/source-bindings/b/import", {}),
    ("POST", "/enterprise/source-bindings/b/reindex", {}),
    ("PATCH", "/enterprise/ingestion-quarantines/q/review", {"decision": "release"}),
]


@pytest.mark.parametrize(("method", "path", "body"), MUTATIONS)
async def test_a_non_admin_principal_is_refused_on_every_mutation(
    client: httpx.AsyncClient, method: str, path: str, body: dict
) -> None:
    reply = await client.request(method, path, json=body, headers=AGENT)
    assert reply.status_code == 403
    assert reply.json()["code"] == "ENTERPRISE_ADMIN_REQUIRED"
    assert reply.json()["message"] == "enterprise admin access is required for this mutation"


async def test_a_verified_principal_without_an_admin_role_is_refused(
    client: httpx.AsyncClient,
) -> None:
    headers = {**ADMIN_OTHER_TENANT, "x-svc-actor-roles": "viewer"}
    reply = await client.post(
        "/enterprise/org-units", json={"unit_id": "u", "display_name": "U"}, headers=headers
    )
    assert reply.status_code == 403
    read = await client.get("/enterprise/readiness", headers=headers)
    assert read.status_code == 403
    assert read.json()["code"] == "ENTERPRISE_READ_ACCESS_REQUIRED"
    assert (await client.get("/enterprise/org-units", headers=headers)).status_code == 200


async def test_records_of_another_tenant_are_invisible(
    client: httpx.AsyncClient, allowed_root: Path
) -> None:
    for path, payload in skeleton_bodies():
        assert (await client.post(path, json=payload)).status_code == 200
    assert (
        await client.post("/enterprise/source-bindings", json=binding_body(allowed_root))
    ).status_code == 200
    for path in (
        "/enterprise/org-units",
        "/enterprise/org-unit-memberships",
        "/enterprise/org-unit-access-grants",
        "/enterprise/connectors",
        "/enterprise/source-bindings",
    ):
        mine = (await client.get(path)).json()
        theirs = (await client.get(path, headers=ADMIN_OTHER_TENANT)).json()
        assert mine["count"] == 1, path
        assert theirs["count"] == 0, path
        assert theirs["tenant_context"]["org_id"] == "acme"
    other = await client.patch(
        "/enterprise/connectors/notes", json={"state": "paused"}, headers=ADMIN_OTHER_TENANT
    )
    assert other.status_code == 404
    assert other.json()["code"] == "ENTERPRISE_CONNECTOR_NOT_FOUND"
    assert other.json()["message"] == "enterprise resource was not found"
    readiness = (await client.get("/enterprise/readiness", headers=ADMIN_OTHER_TENANT)).json()
    assert readiness["counts"]["org_units"] == 0
    effective = await client.get(
        "/enterprise/org-unit-access-grants/effective?member_id=bob", headers=ADMIN_OTHER_TENANT
    )
    assert effective.json()["count"] == 0
    assert (await client.get("/enterprise/org-unit-access-grants/effective?member_id=bob")).json()[
        "count"
    ] == 1
    # A binding whose resource names another tenant is refused.
    foreign = binding_body(allowed_root)
    foreign["resource_ref"]["organization_id"] = "acme"
    refused = await client.post("/enterprise/source-bindings", json=foreign)
    assert refused.json()["code"] == "ENTERPRISE_SOURCE_BINDING_RESOURCE_TENANT_MISMATCH"


async def test_ids_are_validated_with_the_reference_codes(client: httpx.AsyncClient) -> None:
    bad = await client.post(
        "/enterprise/org-units", json={"unit_id": "no spaces", "display_name": "x"}
    )
    assert bad.status_code == 400
    assert bad.json()["code"] == "ENTERPRISE_unit_id_INVALID"
    assert bad.json()["message"] == "enterprise request validation failed"
    unnamed = await client.post("/enterprise/org-units", json={"unit_id": "u"})
    assert unnamed.json()["code"] == "ENTERPRISE_ORG_UNIT_DISPLAY_NAME_REQUIRED"
    orphan = await client.post(
        "/enterprise/org-unit-memberships", json={"unit_id": "missing", "member_id": "m"}
    )
    assert orphan.status_code == 404
    assert orphan.json()["code"] == "ENTERPRISE_ORG_UNIT_NOT_FOUND"


async def test_raw_credential_values_are_refused_and_never_stored(
    client: httpx.AsyncClient,
) -> None:
    await client.post(
        "/enterprise/connectors", json={"connector_id": "c", "provider": "google_drive"}
    )
    secret_ref = {
        "org_id": "local",
        "workspace_id": "local",
        "provider": "vault",
        "secret_id": "drive/reader",
        "name": "reader",
    }
    raw = await client.post(
        "/enterprise/connectors/c/credential-refs",
        json={"credential_id": "r", "secret_ref": secret_ref, "credential_value": "hunter2-raw"},
    )
    assert raw.status_code == 400
    assert raw.json()["code"] == "ENTERPRISE_CONNECTOR_CREDENTIAL_VALUE_NOT_ALLOWED"
    assert "hunter2-raw" not in raw.text
    assert "hunter2-raw" not in (await client.get("/enterprise/connectors")).text
    saved = await client.post(
        "/enterprise/connectors/c/credential-refs",
        json={
            "credential_id": "r",
            "secret_ref": secret_ref,
            "source_bound_resource": {"resource_kind": "shared_drive", "resource_id": "fin"},
        },
    )
    assert saved.status_code == 200, saved.text
    assert saved.json()["connectors"][0]["credential_refs"][0]["secret_ref"]["name"] == "reader"
    duplicate = await client.post(
        "/enterprise/connectors/c/credential-refs",
        json={"credential_id": "r", "secret_ref": secret_ref, "source_bound_resource": {}},
    )
    assert duplicate.json()["code"] == "ENTERPRISE_CONNECTOR_CREDENTIAL_ALREADY_EXISTS"


async def test_status_and_providers(client: httpx.AsyncClient) -> None:
    status = (await client.get("/enterprise/status")).json()
    assert status["bridge_state"] == "storage_backed" and status["public_build"] is True
    providers = (await client.get("/enterprise/connector-providers")).json()
    assert [p["provider"] for p in providers["providers"]] == ["google_drive", "local_directory"]
    assert (await client.get("/enterprise/connector-providers", headers=AGENT)).status_code == 403
