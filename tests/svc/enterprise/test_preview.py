"""Onboarding previews: non-mutating, blocking errors with codes and paths, checked
prerequisites."""

from __future__ import annotations

from typing import Any

import httpx

from svc import Engine
from tests.fakes.mcp_servers import open_mcp_server, workbench_server

PLAN: dict[str, Any] = {
    "org_units": [{"unit_id": "pilot-finance", "taxonomy_id": "department", "display_name": "F"}],
    "connectors": [{"connector_id": "drive", "provider": "local_directory"}],
    "memberships": [{"unit_id": "pilot-finance", "taxonomy_id": "department", "member_id": "Bob"}],
    "grants": [
        {
            "unit_id": "pilot-finance",
            "taxonomy_id": "department",
            "resource_kind": "directory",
            "resource_id": "notes",
            "permissions": ["read"],
            "data_classes": ["internal"],
        }
    ],
    "credential_refs": [
        {
            "connector_id": "drive",
            "credential_id": "reader",
            "secret_ref": {
                "org_id": "local",
                "workspace_id": "local",
                "provider": "vault",
                "secret_id": "s/1",
                "name": "reader",
            },
        }
    ],
    "source_bindings": [
        {
            "binding_id": "notes",
            "connector_id": "drive",
            "source_type": "local_directory",
            "native_source_id": "/srv/notes",
            "credential_ref_id": "reader",
            "resource_ref": {"resource_kind": "directory", "resource_id": "notes"},
            "data_class": "internal",
        }
    ],
}


async def _tables(engine: Engine) -> list[int]:
    from svc.enterprise import enterprise_of

    svc = enterprise_of(engine)
    key = ("local", "local", "")
    return [
        len(await repo.all(key))
        for repo in (svc.org_units, svc.memberships, svc.grants, svc.connectors, svc.bindings)
    ]


async def test_a_clean_plan_is_valid_and_resolves_references_within_the_plan(
    client: httpx.AsyncClient, engine: Engine
) -> None:
    reply = await client.post("/enterprise/onboarding-plans/preview", json=PLAN)
    assert reply.status_code == 200
    body = reply.json()
    assert body["valid"] is True, body["blocking_errors"]
    kinds = [(o["kind"], o["id"], o["status"]) for o in body["operations"]]
    assert kinds == [
        ("org_unit", "department/pilot-finance", "would_create"),
        ("connector", "drive", "would_create"),
        ("org_unit_membership", "membership-department-pilot-finance-bob", "would_create"),
        ("org_unit_access_grant", "grant-department-pilot-finance-notes", "would_create"),
        ("connector_credential_ref", "drive/reader", "would_create"),
        ("source_binding", "notes", "would_create"),
    ]
    assert body["required_human_actions"]
    assert await _tables(engine) == [0, 0, 0, 0, 0]


async def test_raw_credentials_destructive_actions_and_tenant_mismatch_make_it_invalid(
    client: httpx.AsyncClient, engine: Engine
) -> None:
    plan = {
        **PLAN,
        "credential_refs": [
            {**PLAN["credential_refs"][0], "credential_value": "sk-raw-value-1234567890"}
        ],
        "connectors": [
            *PLAN["connectors"],
            {"connector_id": "old", "provider": "google_drive", "action": "Purge"},
        ],
        "grants": [{**PLAN["grants"][0], "unit_id": "nowhere"}],
    }
    plan["source_bindings"] = [
        {
            **PLAN["source_bindings"][0],
            "resource_ref": {
                "organization_id": "acme",
                "resource_kind": "directory",
                "resource_id": "n",
            },
        }
    ]
    body = (await client.post("/enterprise/onboarding-plans/preview", json=plan)).json()
    assert body["valid"] is False
    errors = {(e["code"], e["path"]) for e in body["blocking_errors"]}
    assert ("ENTERPRISE_CONNECTOR_CREDENTIAL_VALUE_NOT_ALLOWED", "credential_refs[0]") in errors
    assert ("ENTERPRISE_PREVIEW_DESTRUCTIVE_ACTION_NOT_ALLOWED", "connectors[1]") in errors
    assert ("ENTERPRISE_PREVIEW_ORG_UNIT_MISSING", "grants[0]") in errors
    assert ("ENTERPRISE_SOURCE_BINDING_RESOURCE_TENANT_MISMATCH", "source_bindings[0]") in errors
    assert "sk-raw-value-1234567890" not in str(body)
    assert await _tables(engine) == [0, 0, 0, 0, 0]


async def test_hosted_prerequisites_are_checked(client: httpx.AsyncClient, engine: Engine) -> None:
    async with open_mcp_server(workbench_server()) as server:
        added = await client.post(
            "/mcp", json={"name": "pilot-tools", "transport": server.url, "enabled": True}
        )
        assert added.status_code < 300, added.text
        assert (await client.post("/mcp/pilot-tools/connect")).status_code == 200
        plan = {
            "mcp_requirements": [
                {"name": "pilot-tools", "required_tools": ["echo", "add"]},
                {"name": "pilot-tools", "required_tools": ["search_drive"]},
                {"name": "absent", "required_tools": ["x"]},
            ],
            "deployment": {"mode": "hosted", "replicas": 3},
        }
        body = (await client.post("/enterprise/onboarding-plans/preview", json=plan)).json()
    codes = {(e["code"], e["path"]) for e in body["blocking_errors"]}
    expected = {
        ("ENTERPRISE_PREVIEW_MCP_TOOLS_UNAVAILABLE", "mcp_requirements[1]"),
        ("ENTERPRISE_PREVIEW_MCP_SERVER_NOT_CONNECTED", "mcp_requirements[2]"),
        ("ENTERPRISE_PREVIEW_API_TOKEN_REQUIRED", "deployment"),
    }
    if engine.store.kind != "postgresql":  # SVC_TEST_STORE=postgresql meets the prerequisite
        expected.add(("ENTERPRISE_PREVIEW_POSTGRESQL_REQUIRED", "deployment.replicas"))
    assert codes == expected
    assert body["operations"][0]["status"] == "requires_human_action"
