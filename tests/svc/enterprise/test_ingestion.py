"""A local_directory binding ingests a folder: quarantine, review, release, data classes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from svc import Engine

from .conftest import binding_body, skeleton_bodies

SECRET = "rotate the deploy key: api_key=sk-live-abcdefghijklmnop1234\n"


async def _setup(client: httpx.AsyncClient, root: Path, **extra: object) -> None:
    for path, payload in skeleton_bodies():
        assert (await client.post(path, json=payload)).status_code == 200
    saved = await client.post("/enterprise/source-bindings", json=binding_body(root, **extra))
    assert saved.status_code == 200, saved.text


async def _search(client: httpx.AsyncClient, query: str, member: str) -> dict:
    reply = await client.post(
        "/enterprise/memory/search", json={"query": query, "member_id": member}
    )
    assert reply.status_code == 200, reply.text
    return reply.json()


async def test_binding_ingests_quarantines_a_secret_and_releases_it_after_review(
    client: httpx.AsyncClient, engine: Engine, allowed_root: Path
) -> None:
    (allowed_root / "budget.md").write_text("# Budget\nquarterly forecast for finance\n")
    (allowed_root / "team").mkdir()
    (allowed_root / "team" / "roster.md").write_text("finance roster forecast\n")
    (allowed_root / "deploy.md").write_text("forecast deploy notes\n" + SECRET)
    await _setup(client, allowed_root)

    preflight = await client.post("/enterprise/source-bindings/finance-notes/preflight")
    assert preflight.status_code == 200, preflight.text
    plan = preflight.json()
    assert plan["ready"] is True
    assert plan["counts"]["would_import"] == 2
    assert plan["counts"]["would_quarantine"] == 1
    assert plan["data_classes"] == {"confidential": 2}
    held = next(i for i in plan["items"] if i["path"] == "deploy.md")
    assert held["action"] == "quarantine" and held["reasons"] == ["secret_detected"]
    assert await engine.memory.store.records.count() == 0  # a preflight writes nothing

    job = (await client.post("/enterprise/source-bindings/finance-notes/import", json={})).json()
    assert job["job"]["state"] == "completed"
    assert job["job"]["counts"]["imported_files"] == 2
    assert job["job"]["counts"]["new_quarantines"] == 1

    found = await _search(client, "forecast", "bob")
    assert found["allowed_data_classes"] == ["confidential"]
    paths = sorted(r["metadata"]["path"] for r in found["results"])
    assert paths == ["budget.md", "team/roster.md"]
    record = found["results"][0]
    assert record["classification"] == "confidential"
    assert record["tier"] == "project" and record["project_id"] == "finance"
    assert SECRET.strip() not in str(found)

    listing = (await client.get("/enterprise/ingestion-quarantines?state=pending")).json()
    assert listing["count"] == 1
    quarantine = listing["quarantines"][0]
    assert quarantine["path"] == "deploy.md" and quarantine["detectors"] == ["credential_pattern"]

    reviewed = await client.patch(
        f"/enterprise/ingestion-quarantines/{quarantine['quarantine_id']}/review",
        json={"decision": "release", "notes": "test key, revoked"},
    )
    assert reviewed.status_code == 200, reviewed.text
    assert reviewed.json()["quarantine"]["state"] == "released"
    assert reviewed.json()["job"]["counts"]["imported_files"] == 1

    again = await _search(client, "deploy", "bob")
    assert [r["metadata"]["path"] for r in again["results"]] == ["deploy.md"]
    readiness = (await client.get("/enterprise/readiness")).json()
    assert readiness["counts"]["pending_quarantines"] == 0

    impact = (await client.get("/enterprise/connectors/notes/impact")).json()
    assert [b["binding_id"] for b in impact["affected_bindings"]] == ["finance-notes"]
    assert len(impact["affected_source_objects"]) == 3
    assert impact["cache_invalidation_required"] is True


async def test_memory_search_honours_the_grants_data_classes(
    client: httpx.AsyncClient, allowed_root: Path
) -> None:
    (allowed_root / "budget.md").write_text("forecast figures\n")
    await _setup(client, allowed_root, data_class="restricted")
    assert (
        await client.post("/enterprise/source-bindings/finance-notes/import")
    ).status_code == 200

    # bob's grant covers `confidential` only: the restricted records stay hidden.
    hidden = await _search(client, "forecast", "bob")
    assert hidden["count"] == 0
    # carol has no membership at all.
    assert (await _search(client, "forecast", "carol"))["count"] == 0

    widen = await client.post(
        "/enterprise/org-unit-access-grants",
        json={
            "unit_id": "pilot-finance",
            "taxonomy_id": "department",
            "permission": "read",
            "data_class": "restricted",
            "resource_ref": {"kind": "directory", "resource_id": "finance-notes"},
        },
    )
    assert widen.status_code == 200, widen.text
    assert widen.json()["access_grants"][0]["data_classes"] == ["restricted"]
    visible = await _search(client, "forecast", "bob")
    assert visible["count"] == 1
    assert visible["results"][0]["classification"] == "restricted"

    deny = await client.post(
        "/enterprise/org-unit-access-grants",
        json={
            "grant_id": "no-restricted",
            "unit_id": "pilot-finance",
            "taxonomy_id": "department",
            "resource_kind": "directory",
            "resource_id": "finance-notes",
            "effect": "deny",
            "data_classes": ["restricted"],
        },
    )
    assert deny.status_code == 200
    assert (await _search(client, "forecast", "bob"))["count"] == 0


@pytest.mark.parametrize("escape", ["outside", "symlink"])
async def test_a_folder_outside_the_allowed_roots_is_refused(
    client: httpx.AsyncClient, allowed_root: Path, tmp_path: Path, escape: str
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    target = outside
    if escape == "symlink":
        target = allowed_root / "link"
        target.symlink_to(outside, target_is_directory=True)
    for path, payload in skeleton_bodies():
        await client.post(path, json=payload)
    refused = await client.post("/enterprise/source-bindings", json=binding_body(target))
    assert refused.status_code == 400
    assert refused.json()["code"] == "ENTERPRISE_LOCAL_DIRECTORY_ROOT_NOT_ALLOWED"
    assert (await client.get("/enterprise/source-bindings")).json()["count"] == 0


async def test_require_review_quarantines_every_file_and_delete_keeps_it_out(
    client: httpx.AsyncClient, allowed_root: Path
) -> None:
    (allowed_root / "a.md").write_text("forecast alpha\n")
    await _setup(client, allowed_root, ingestion_policy={"require_review": True})
    job = (await client.post("/enterprise/source-bindings/finance-notes/import")).json()["job"]
    assert job["counts"]["imported_files"] == 0 and job["counts"]["pending_quarantines"] == 1
    pending = (await client.get("/enterprise/ingestion-quarantines")).json()["quarantines"][0]
    assert pending["reasons"] == ["review_required"]
    deleted = await client.patch(
        f"/enterprise/ingestion-quarantines/{pending['quarantine_id']}/review",
        json={"decision": "delete"},
    )
    assert deleted.json()["quarantine"]["state"] == "deleted"
    again = (await client.post("/enterprise/source-bindings/finance-notes/import")).json()["job"]
    assert again["counts"]["held_after_review"] == 1 and again["counts"]["imported_files"] == 0
    assert (await _search(client, "forecast", "bob"))["count"] == 0
    twice = await client.patch(
        f"/enterprise/ingestion-quarantines/{pending['quarantine_id']}/review",
        json={"decision": "release"},
    )
    assert twice.status_code == 409
