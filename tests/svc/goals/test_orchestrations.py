"""Orchestration drafts, validation, reference pinning, immutable versions and dry runs over
HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

import svc
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import create_workflows


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings]) -> svc.Settings:
    # Trusted tenant headers: these tests also check tenant scoping and ownership.
    return make_settings(goals_trust_tenant_headers=True)


@pytest.fixture
async def workflows(engine: svc.Engine) -> AsyncIterator[None]:
    await create_workflows(engine, "wf-plan", "wf-build")
    yield


async def create(client: httpx.AsyncClient, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await client.post("/orchestrations", json=body or linear_spec())
    assert response.status_code == 201, response.text
    return response.json()


async def test_a_draft_is_version_zero_and_ids_are_unique(client: httpx.AsyncClient) -> None:
    created = await create(client)
    assert created["version"] == 0 and created["status"] == "draft"
    spec = created["orchestration"]
    assert spec["orchestration_id"] == "release-loop" and spec["schema_version"] == 1
    assert spec["metadata"]["created_by"] == "local-operator"
    assert spec["tenant_context"] == {
        "org_id": "local",
        "workspace_id": "local",
        "source": "local_implicit",
    }
    assert spec["goal_policy"] == {"max_hops": 100, "on_limit": "pause_for_review"}
    assert spec["nodes"][0] == {
        "node_id": "plan",
        "name": "Plan",
        "position": {"x": 0.0, "y": 0.0},
        "kind": "workflow",
        "automation_id": "wf-plan",
        "allowed_transition_keys": ["planned"],
        "emits_artifact_types": ["plan"],
    }
    again = await client.post("/orchestrations", json=linear_spec())
    assert again.status_code == 409
    assert again.json()["code"] == "draft_concurrency_conflict"
    assert again.json()["updated_at_ms"] == created["updated_at_ms"]
    token = await client.post(
        "/orchestrations", json={**linear_spec(orchestration_id="o2"), "expected_updated_at_ms": 1}
    )
    assert token.status_code == 400 and token.json()["code"] == "invalid_orchestration_request"
    generated = await create(
        client, {k: v for k, v in linear_spec().items() if k != "orchestration_id"}
    )
    assert generated["orchestration_id"].startswith("orch-")


async def test_bad_bodies_are_400_naming_the_field(client: httpx.AsyncClient) -> None:
    body = linear_spec()
    body["nodes"][0]["position"] = {"x": "left"}
    response = await client.post("/orchestrations", json=body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_orchestration_request"
    assert response.json()["field"] == "nodes[0].position.x"


async def test_updates_need_the_current_token(client: httpx.AsyncClient) -> None:
    created = await create(client)
    body = linear_spec()
    body["name"] = "Renamed"
    missing = await client.put("/orchestrations/release-loop", json=body)
    assert missing.status_code == 409
    assert missing.json()["code"] == "draft_concurrency_conflict"
    assert missing.json()["detail"] == "draft updates require expected_updated_at_ms"
    assert missing.json()["updated_at_ms"] == created["updated_at_ms"]
    updated = await client.put(
        "/orchestrations/release-loop",
        json={**body, "expected_updated_at_ms": created["updated_at_ms"]},
    )
    assert updated.status_code == 200, updated.text
    assert updated.json()["orchestration"]["name"] == "Renamed"
    assert updated.json()["updated_at_ms"] > created["updated_at_ms"]
    stale = await client.put(
        "/orchestrations/release-loop",
        json={**body, "expected_updated_at_ms": created["updated_at_ms"]},
    )
    assert stale.status_code == 409
    assert "modified concurrently" in stale.json()["detail"]
    assert (
        await client.put("/orchestrations/ghost", json={**body, "expected_updated_at_ms": 1})
    ).status_code == 404


async def test_validate_reports_graph_issues_and_missing_workflows(
    client: httpx.AsyncClient, workflows: None
) -> None:
    body = linear_spec(review="wf-absent")
    body["nodes"][0]["allowed_transition_keys"] = ["other"]
    await create(client, body)
    response = await client.post("/orchestrations/release-loop/validate")
    assert response.status_code == 200
    result = response.json()
    assert result["version"] == 0 and result["report"]["valid"] is False
    codes = {(i["code"], i.get("node_id"), i.get("edge_id")) for i in result["report"]["issues"]}
    assert ("unknown_transition_key", "plan", "e1") in codes
    assert ("missing_workflow", "review", None) in codes
    assert result["stale_references"] == []


async def test_refresh_pins_workflows_and_edits_make_them_stale(
    client: httpx.AsyncClient, engine: svc.Engine, workflows: None
) -> None:
    created = await create(client)
    refs = (await client.get("/orchestrations/release-loop/stale-references")).json()
    assert [r["state"] for r in refs["references"]] == ["unpinned", "unpinned"] and refs[
        "stale_count"
    ] == 0
    no_token = await client.post("/orchestrations/release-loop/refresh-references", json={})
    assert no_token.status_code == 409
    refreshed = await client.post(
        "/orchestrations/release-loop/refresh-references",
        json={"expected_updated_at_ms": created["updated_at_ms"]},
    )
    assert refreshed.status_code == 200
    assert refreshed.json()["refreshed_node_ids"] == ["plan", "build"]
    build_hash = engine.automations.definition_hash(await engine.automations.get_v2("wf-build"))
    pinned = {
        n["node_id"]: n.get("pinned_definition_hash")
        for n in refreshed.json()["orchestration"]["nodes"]
    }
    assert pinned["build"] == build_hash

    await engine.automations.v2.patch("wf-build", {"description": "now with tests"})
    validated = (await client.post("/orchestrations/release-loop/validate")).json()
    assert validated["report"]["valid"] is True
    [stale] = validated["stale_references"]
    assert (
        stale["node_id"] == "build"
        and stale["state"] == "stale"
        and stale["pinned_hash"] == build_hash
    )
    assert stale["current_hash"] != build_hash
    refused = await client.post("/orchestrations/release-loop/publish", json={})
    assert refused.status_code == 422
    assert refused.json()["code"] == "orchestration_invalid"
    assert refused.json()["report"]["valid"] is True
    assert [r["node_id"] for r in refused.json()["stale_references"]] == ["build"]


async def test_publish_writes_immutable_numbered_versions(
    client: httpx.AsyncClient, engine: svc.Engine, workflows: None
) -> None:
    created = await create(client)
    unpinned = await client.post("/orchestrations/release-loop/publish", json=None)
    assert unpinned.status_code == 422
    assert {i["code"] for i in unpinned.json()["report"]["issues"]} == {"unpinned_workflow"}
    refreshed = (
        await client.post(
            "/orchestrations/release-loop/refresh-references",
            json={"expected_updated_at_ms": created["updated_at_ms"]},
        )
    ).json()
    stale_token = await client.post(
        "/orchestrations/release-loop/publish",
        json={"expected_updated_at_ms": created["updated_at_ms"]},
    )
    assert (
        stale_token.status_code == 409
        and stale_token.json()["code"] == "draft_concurrency_conflict"
    )
    first = await client.post(
        "/orchestrations/release-loop/publish",
        json={"expected_updated_at_ms": refreshed["orchestration"]["updated_at_ms"]},
    )
    assert first.status_code == 201, first.text
    v1 = first.json()
    assert (v1["version"], v1["status"]) == (1, "published")
    publish_meta = v1["orchestration"]["metadata"]["publish"]
    assert publish_meta["validation"] == {"valid": True, "issues": []}
    assert set(publish_meta["workflow_definition_hashes"]) == {"wf-plan", "wf-build"}
    second = await client.post("/orchestrations/release-loop/publish")
    assert second.status_code == 201 and second.json()["version"] == 2

    versions = (await client.get("/orchestrations/release-loop/versions")).json()
    assert [v["version"] for v in versions["versions"]] == [1, 2] and versions["count"] == 2
    fetched = (await client.get("/orchestrations/release-loop/versions/1")).json()
    assert fetched["orchestration"] == v1["orchestration"]
    assert (await client.get("/orchestrations/release-loop/versions/0")).json()["status"] == "draft"
    assert (await client.get("/orchestrations/release-loop/versions/9")).status_code == 404
    both = (await client.get("/orchestrations/release-loop")).json()
    assert both["draft"]["version"] == 0 and both["latest_published"]["version"] == 2
    listed = (await client.get("/orchestrations", params={"status": "published"})).json()
    assert listed["count"] == 1
    assert listed["orchestrations"][0]["latest_published_version"] == 2
    assert [v["version"] for v in listed["orchestrations"][0]["published_versions"]] == [1, 2]
    assert (await client.get("/orchestrations", params={"status": "archived"})).json()["count"] == 0

    # Editing the draft never touches a published version.
    draft = (await client.get("/orchestrations/release-loop")).json()["draft"]
    body = linear_spec()
    body["name"] = "Edited after publishing"
    await client.put(
        "/orchestrations/release-loop",
        json={**body, "expected_updated_at_ms": draft["updated_at_ms"]},
    )
    assert (await client.get("/orchestrations/release-loop/versions/1")).json()["orchestration"][
        "name"
    ] == "Plan, build, done"


async def test_archived_drafts_cannot_be_published(
    client: httpx.AsyncClient, workflows: None
) -> None:
    await create(client)
    archived = await client.post("/orchestrations/release-loop/archive")
    assert archived.status_code == 200 and archived.json()["status"] == "archived"
    refused = await client.post("/orchestrations/release-loop/publish")
    assert refused.status_code == 409 and refused.json()["code"] == "orchestration_archived"
    malformed = await client.post("/orchestrations/release-loop/archive", json=["nope"])
    assert (
        malformed.status_code == 400
        and malformed.json()["code"] == "invalid_orchestration_revision"
    )
    listed = (await client.get("/orchestrations", params={"status": "archived"})).json()
    assert [o["orchestration_id"] for o in listed["orchestrations"]] == ["release-loop"]


async def test_dry_run_accepts_both_spellings(client: httpx.AsyncClient) -> None:
    await create(client)
    snake = await client.post(
        "/orchestrations/release-loop/dry-run",
        json={"from_node_id": "plan", "transition_key": "planned", "artifact_type": "plan"},
    )
    camel = await client.post(
        "/orchestrations/release-loop/dry-run",
        json={"fromNodeId": "plan", "transitionKey": "planned", "artifactType": "plan"},
    )
    assert snake.status_code == camel.status_code == 200
    assert snake.json() == camel.json()
    assert snake.json()["allowed"] is True and snake.json()["target"]["node_id"] == "build"
    wrong = (
        await client.post(
            "/orchestrations/release-loop/dry-run",
            json={"fromNodeId": "build", "transitionKey": "planned"},
        )
    ).json()
    assert wrong["allowed"] is False
    assert [i["code"] for i in wrong["issues"]] == [
        "transition_key_not_allowed",
        "no_matching_edge",
    ]
    missing = await client.post(
        "/orchestrations/release-loop/dry-run", json={"transition_key": "planned"}
    )
    assert missing.status_code == 400 and missing.json()["field"] == "from_node_id"
    assert (
        await client.post(
            "/orchestrations/release-loop/dry-run",
            json={"from_node_id": "plan", "transition_key": "planned", "version": 3},
        )
    ).status_code == 404


async def test_tenants_are_isolated_and_owners_checked(client: httpx.AsyncClient) -> None:
    acme = {"x-svc-org-id": "acme", "x-svc-workspace-id": "w1", "x-svc-actor-id": "alice"}
    created = await client.post("/orchestrations", json=linear_spec(), headers=acme)
    assert created.status_code == 201
    assert created.json()["orchestration"]["tenant_context"] == {
        "org_id": "acme",
        "workspace_id": "w1",
        "source": "explicit",
    }
    # Another tenant may own an orchestration with the same id, and cannot see acme's.
    assert (await client.get("/orchestrations/release-loop")).status_code == 404
    await create(client)
    assert (await client.get("/orchestrations")).json()["count"] == 1
    body = {**linear_spec(), "expected_updated_at_ms": created.json()["updated_at_ms"]}
    bob = {**acme, "x-svc-actor-id": "bob"}
    forbidden = await client.put("/orchestrations/release-loop", json=body, headers=bob)
    assert forbidden.status_code == 403 and forbidden.json()["code"] == "orchestration_forbidden"
    admin = {**bob, "x-svc-actor-roles": "admin"}
    assert (
        await client.put("/orchestrations/release-loop", json=body, headers=admin)
    ).status_code == 200
