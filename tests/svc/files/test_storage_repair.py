"""``POST /global/storage/repair``: the store's checks in the reply shape clients read."""

from __future__ import annotations

import httpx


async def test_a_clean_store_reports_ok(client: httpx.AsyncClient) -> None:
    body = (await client.post("/global/storage/repair", json={"force": False})).json()
    assert body["status"] == "ok"
    assert body["integrity"]["status"] in ("ok", "skipped")
    assert set(body["orphans"].values()) == {0}
    assert body["sessions_merged"] == 0 and isinstance(body["legacy_counts"], dict)
    assert set(body["imported_counts"]) == {"sessions", "messages", "runs", "events"}


async def test_orphans_are_reported_then_removed_with_force(client: httpx.AsyncClient) -> None:
    parent = (await client.post("/session", json={"title": "parent"})).json()["id"]
    await client.post(
        f"/session/{parent}/prompt_sync", json={"parts": [{"type": "text", "text": "hi"}]}
    )
    child = (await client.post(f"/session/{parent}/fork", json={})).json()["id"]
    assert (await client.delete(f"/session/{parent}")).json()["deleted"] is True

    found = (await client.post("/global/storage/repair", json={})).json()
    assert found["status"] == "issues_found"
    assert found["orphans"]["runs"] == 1 and found["orphans"]["dangling_parent_links"] == 1
    assert found["removed"] == {}

    fixed = (await client.post("/global/storage/repair", json={"force": True})).json()
    assert fixed["status"] == "repaired"
    assert fixed["removed"]["runs"] == 1 and fixed["removed"]["dangling_parent_links"] == 1
    assert "parentID" not in (await client.get(f"/session/{child}")).json()
    again = (await client.post("/global/storage/repair", json={})).json()
    assert again["status"] == "ok"

    bad = await client.post("/global/storage/repair", json={"force": "yes"})
    assert bad.status_code == 400 and bad.json()["field"] == "force"
