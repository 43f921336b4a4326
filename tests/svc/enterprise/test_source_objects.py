"""One ingested source object: list, re-scope, delete, reindex; later imports honour them."""

from __future__ import annotations

from pathlib import Path

import httpx

from .conftest import AGENT, binding_body, skeleton_bodies

BASE = "/enterprise/source-bindings/finance-notes/source-objects"


async def _paths(client: httpx.AsyncClient, query: str, member: str = "bob") -> list[str]:
    found = await client.post(
        "/enterprise/memory/search", json={"query": query, "member_id": member}
    )
    assert found.status_code == 200, found.text
    return sorted(r["metadata"]["path"] for r in found.json()["results"])


async def test_objects_are_rescoped_deleted_and_reindexed_one_at_a_time(
    client: httpx.AsyncClient, allowed_root: Path
) -> None:
    (allowed_root / "budget.md").write_text("forecast budget figures\n")
    (allowed_root / "plan.md").write_text("forecast plan notes\n")
    for path, payload in skeleton_bodies():
        assert (await client.post(path, json=payload)).status_code == 200
    saved = await client.post("/enterprise/source-bindings", json=binding_body(allowed_root))
    assert saved.status_code == 200, saved.text
    imported = await client.post("/enterprise/source-bindings/finance-notes/import", json={})
    assert imported.json()["job"]["counts"]["imported_files"] == 2
    assert await _paths(client, "forecast") == ["budget.md", "plan.md"]

    listing = (await client.get(BASE)).json()
    assert [(o["path"], o["state"], o["indexed"]) for o in listing["source_objects"]] == [
        ("budget.md", "active", True),
        ("plan.md", "active", True),
    ]
    budget, plan = (o["object_id"] for o in listing["source_objects"])

    refused = await client.patch(
        f"{BASE}/{budget}/scope", json={"data_class": "restricted"}, headers=AGENT
    )
    assert refused.status_code == 403 and refused.json()["code"] == "ENTERPRISE_ADMIN_REQUIRED"
    # Re-scoped to `restricted`: bob's grant covers `confidential` only.
    scoped = await client.patch(f"{BASE}/{budget}/scope", json={"data_class": "restricted"})
    assert scoped.status_code == 200, scoped.text
    assert scoped.json()["source_object"]["data_class"] == "restricted"
    assert scoped.json()["outcome"]["imported"] is True
    assert await _paths(client, "forecast") == ["plan.md"]

    deleted = await client.delete(f"{BASE}/{plan}")
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["source_object"]["state"] == "deleted"
    assert await _paths(client, "forecast") == []

    # A later import of the whole binding keeps both decisions.
    again = await client.post("/enterprise/source-bindings/finance-notes/import", json={})
    assert again.status_code == 200, again.text
    assert await _paths(client, "forecast") == []
    after = {o["path"]: o for o in (await client.get(BASE)).json()["source_objects"]}
    assert (after["budget.md"]["indexed"], after["budget.md"]["data_class"]) == (True, "restricted")
    assert (after["plan.md"]["indexed"], after["plan.md"]["state"]) == (False, "deleted")

    # Reindexing the deleted object brings it back (and clears the delete).
    back = await client.post(f"{BASE}/{plan}/reindex", json={})
    assert back.status_code == 200, back.text
    assert back.json()["source_object"]["state"] == "active"
    assert await _paths(client, "forecast") == ["plan.md"]

    missing = await client.post(f"{BASE}/obj-000000000000000000000000/reindex")
    assert missing.status_code == 404
    assert missing.json()["code"] == "ENTERPRISE_SOURCE_OBJECT_NOT_FOUND"
    bad = await client.patch(f"{BASE}/{budget}/scope", json={"data_class": "top-secret!"})
    assert bad.status_code == 400
