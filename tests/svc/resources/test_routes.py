"""The key/value resource store over HTTP, in the request and reply shapes clients use."""

from __future__ import annotations

import json

import httpx
import trio

from tests.helpers import read_sse


async def test_write_get_list_and_revisions(client: httpx.AsyncClient) -> None:
    written = await client.put(
        "/resource",
        json={"key": "agent-config/model", "value": {"model": "a"}, "updated_by": "ops"},
    )
    assert written.status_code == 200
    assert written.json()["ok"] is True and written.json()["rev"] == 1
    got = (await client.get("/resource/agent-config/model")).json()
    assert got["key"] == "agent-config/model"
    assert got["value"] == {"model": "a"} and got["rev"] == 1
    assert got["updated_by"] == "ops" and isinstance(got["updated_at_ms"], int)
    again = await client.put("/resource/agent-config/model", json={"value": {"model": "b"}})
    assert again.json()["rev"] == 2
    await client.put("/resource/other/x", json={"value": 1})
    listed = (await client.get("/resource", params={"prefix": "agent-config/"})).json()
    assert listed["count"] == 1 and listed["items"][0]["value"] == {"model": "b"}
    limited = (await client.get("/resource", params={"limit": 1})).json()
    assert limited["count"] == 1


async def test_a_stale_expected_revision_is_a_409_with_the_current_one(
    client: httpx.AsyncClient,
) -> None:
    await client.put("/resource/k", json={"value": 1})
    await client.put("/resource/k", json={"value": 2, "if_match_rev": 1})
    stale = await client.put("/resource/k", json={"value": 3, "if_match_rev": 1})
    assert stale.status_code == 409
    body = stale.json()
    assert body["code"] == "RESOURCE_REVISION_CONFLICT" and body["current_rev"] == 2
    assert (await client.get("/resource/k")).json()["value"] == 2
    # Revision 0 means "must not exist yet".
    taken = await client.put("/resource", json={"key": "k", "value": 9, "if_match_rev": 0})
    assert taken.status_code == 409
    fresh = await client.put("/resource", json={"key": "new", "value": 9, "if_match_rev": 0})
    assert fresh.json()["rev"] == 1


async def test_concurrent_writers_expecting_one_revision_yield_one_winner(
    client: httpx.AsyncClient,
) -> None:
    await client.put("/resource/race", json={"value": 0})
    statuses: list[int] = []

    async def write(n: int) -> None:
        r = await client.put("/resource/race", json={"value": n, "if_match_rev": 1})
        statuses.append(r.status_code)

    async with trio.open_nursery() as nursery:
        for n in range(5):
            nursery.start_soon(write, n)
    assert sorted(statuses) == [200, 409, 409, 409, 409]
    assert (await client.get("/resource/race")).json()["rev"] == 2


async def test_patch_merges_into_the_stored_object(client: httpx.AsyncClient) -> None:
    await client.put("/resource/cfg", json={"value": {"a": 1, "b": {"c": 2, "d": 3}}})
    patched = await client.patch("/resource/cfg", json={"b": {"c": None, "e": 4}, "f": 5})
    assert patched.status_code == 200 and patched.json()["rev"] == 2
    value = (await client.get("/resource/cfg")).json()["value"]
    assert value == {"a": 1, "b": {"d": 3, "e": 4}, "f": 5}
    guarded = await client.patch("/resource/cfg", json={"patch": {"a": 9}, "if_match_rev": 1})
    assert guarded.status_code == 409


async def test_delete_by_body_and_by_key(client: httpx.AsyncClient) -> None:
    await client.put("/resource/gone", json={"value": 1})
    await client.put("/resource/also", json={"value": 1})
    removed = await client.request("DELETE", "/resource", json={"key": "gone", "if_match_rev": 1})
    assert removed.status_code == 200 and removed.json()["ok"] is True
    assert (await client.get("/resource/gone")).status_code == 404
    assert (await client.delete("/resource/also")).json()["deleted"] is True
    missing = await client.delete("/resource/also")
    assert missing.status_code == 404 and missing.json()["code"] == "RESOURCE_NOT_FOUND"


async def test_bad_input_names_the_field(client: httpx.AsyncClient) -> None:
    no_value = await client.put("/resource/k", json={})
    assert no_value.status_code == 400 and no_value.json()["field"] == "value"
    no_key = await client.put("/resource", json={"value": 1})
    assert no_key.status_code == 400 and no_key.json()["field"] == "key"
    bad_rev = await client.put("/resource/k", json={"value": 1, "if_match_rev": "x"})
    assert bad_rev.status_code == 400 and bad_rev.json()["field"] == "if_match_rev"


async def test_events_stream_changes_and_tails(client: httpx.AsyncClient) -> None:
    await client.put("/resource/before", json={"value": 1})
    frames: list[dict[str, str]] = []
    connected = trio.Event()

    async def read(response: httpx.Response) -> None:
        frames.extend(await read_sse(response, 3))

    async with client.stream("GET", "/resource/events", params={"tail": 1}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(read, response)
            connected.set()
            await client.put("/resource/live", json={"value": 2})
    bodies = [json.loads(f["data"]) for f in frames]
    assert bodies[0]["type"] == "resource.stream.connected"
    assert bodies[1]["type"] == "resource.updated" and bodies[1]["properties"]["key"] == "before"
    assert bodies[2]["properties"]["key"] == "live" and bodies[2]["properties"]["rev"] == 1
    assert isinstance(bodies[2]["seq"], int)
