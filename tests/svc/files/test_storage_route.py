"""``GET /global/storage/files`` over HTTP, rooted at the engine's state directory."""

from __future__ import annotations

import httpx
import pytest

import svc


async def test_lists_channel_uploads_under_the_state_dir(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    uploads = engine.state_dir / "channel_uploads" / "telegram" / "42"
    uploads.mkdir(parents=True)
    (uploads / "photo.jpg").write_bytes(b"x" * 1234)
    response = await client.get(
        "/global/storage/files", params={"path": "channel_uploads", "limit": 10}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["root"] == str(engine.state_dir) and body["base"] == str(
        engine.state_dir / "channel_uploads"
    )
    assert (body["count"], body["limit"]) == (1, 10)
    assert body["files"][0]["path"] == "channel_uploads/telegram/42/photo.jpg"
    assert body["files"][0]["relative_to_base"] == "telegram/42/photo.jpg"
    assert body["files"][0]["size_bytes"] == 1234


async def test_the_root_listing_includes_the_database(client: httpx.AsyncClient) -> None:
    body = (await client.get("/global/storage/files")).json()
    assert "svc.db" in [f["path"] for f in body["files"]] and body["limit"] == 500


@pytest.mark.parametrize(
    "path", ["..", "../../etc", "/etc", "channel_uploads/../..", "C:\\Windows", "a\x00b"]
)
async def test_escaping_paths_are_400(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get("/global/storage/files", params={"path": path})
    assert response.status_code == 400
    assert response.json()["code"] == "STORAGE_PATH_INVALID" and response.json()["field"] == "path"


async def test_missing_paths_are_404_and_bad_limits_clamped(client: httpx.AsyncClient) -> None:
    missing = await client.get("/global/storage/files", params={"path": "nope"})
    assert missing.status_code == 404 and missing.json()["code"] == "STORAGE_PATH_NOT_FOUND"
    assert (await client.get("/global/storage/files", params={"limit": 0})).json()["limit"] == 1
    assert (await client.get("/global/storage/files", params={"limit": 10**6})).json()[
        "limit"
    ] == 5000
    bad = await client.get("/global/storage/files", params={"limit": "many"})
    assert bad.status_code == 400 and bad.json()["field"] == "limit"
