"""Two tenants binding the same folder each get their own memory records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from .conftest import ADMIN_OTHER_TENANT, binding_body, skeleton_bodies


async def _bind_and_import(
    client: httpx.AsyncClient, root: Path, headers: dict[str, str], org: str, ws: str
) -> dict[str, Any]:
    for path, payload in skeleton_bodies():
        saved = await client.post(path, json=payload, headers=headers)
        assert saved.status_code == 200, saved.text
    body = binding_body(root)
    body["resource_ref"] = {**body["resource_ref"], "organization_id": org, "workspace_id": ws}
    saved = await client.post("/enterprise/source-bindings", json=body, headers=headers)
    assert saved.status_code == 200, saved.text
    job = await client.post(
        "/enterprise/source-bindings/finance-notes/import", json={}, headers=headers
    )
    assert job.status_code == 200, job.text
    return job.json()["job"]["counts"]


async def test_two_tenants_importing_the_same_folder_do_not_collide(
    client: httpx.AsyncClient, allowed_root: Path
) -> None:
    (allowed_root / "budget.md").write_text("# Budget\nquarterly forecast for finance\n")
    local = await _bind_and_import(client, allowed_root, {}, "local", "local")
    assert local["imported_files"] == 1
    other = await _bind_and_import(client, allowed_root, ADMIN_OTHER_TENANT, "acme", "research")
    # The second tenant's import reads the file for itself, not "unchanged".
    assert other["imported_files"] == 1 and other["unchanged_files"] == 0

    for headers in ({}, ADMIN_OTHER_TENANT):
        found = await client.post(
            "/enterprise/memory/search",
            json={"query": "forecast", "member_id": "bob"},
            headers=headers,
        )
        assert found.status_code == 200, found.text
        results = found.json()["results"]
        assert [r["metadata"]["path"] for r in results] == ["budget.md"]

    # A reindex of one tenant leaves the other's records alone.
    again = await client.post(
        "/enterprise/source-bindings/finance-notes/reindex", json={}, headers=ADMIN_OTHER_TENANT
    )
    assert again.status_code == 200, again.text
    kept = await client.post(
        "/enterprise/memory/search", json={"query": "forecast", "member_id": "bob"}
    )
    assert kept.json()["count"] == 1
