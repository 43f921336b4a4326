"""Every SSE stream: id frames, resume, keep-alive, clean disconnects."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import trio

import svc
from svc.clock import TrioClock
from svc.events import KEEPALIVE, EventFilter, open_event_log
from svc.http.sse import event_frames
from svc.store import open_sqlite_store
from tests.helpers import read_sse


async def _committed_seqs(engine: svc.Engine, session_id: str) -> list[int]:
    """The seqs of a session's events once committed (on PostgreSQL the database
    numbers them at commit, so publish() cannot return them)."""
    await engine.events.flush()
    return [e.seq for e in await engine.events.replay(EventFilter(session_id=session_id))]


async def test_event_stream_frames_carry_seq_ids_and_envelopes(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    async with client.stream("GET", "/event", params={"sessionID": "s1"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        await engine.events.wait_for_subscribers(lambda n: n >= 1)
        engine.events.publish("test.other", {"sessionID": "s2"})
        engine.events.publish("test.mine", {"sessionID": "s1", "n": 1})
        frames = await read_sse(response, 3)
    # The seq as committed (on PostgreSQL publish() cannot know it yet).
    published = (await engine.events.replay(EventFilter(session_id="s1"), tail=True, limit=1))[0]
    assert json.loads(frames[0]["data"])["type"] == "server.connected"
    assert json.loads(frames[1]["data"])["type"] == "engine.lifecycle.ready"
    assert frames[2]["id"] == str(published.seq)
    body = json.loads(frames[2]["data"])
    assert body["type"] == "test.mine"
    assert body["envelope"]["seq"] == published.seq
    assert body["envelope"]["session_id"] == "s1"


async def test_stream_resumes_after_last_event_id(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    for i in range(5):
        engine.events.publish("test.e", {"sessionID": "s1", "i": i})
    seqs = await _committed_seqs(engine, "s1")
    headers = {"Last-Event-ID": str(seqs[1])}
    async with client.stream(
        "GET", "/event", params={"sessionID": "s1"}, headers=headers
    ) as response:
        frames = await read_sse(response, 5)
    replayed = [int(f["id"]) for f in frames if "id" in f]
    assert replayed == seqs[2:]


async def test_cursor_query_resumes_like_last_event_id(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    for _ in range(3):
        engine.events.publish("test.e", {"sessionID": "s9"})
    seqs = await _committed_seqs(engine, "s9")
    params = {"sessionID": "s9", "cursor": str(seqs[0])}
    async with client.stream("GET", "/event", params=params) as response:
        frames = await read_sse(response, 4)
    assert [int(f["id"]) for f in frames if "id" in f] == seqs[1:]


async def test_bad_cursor_is_a_400(client: httpx.AsyncClient) -> None:
    response = await client.get("/event", headers={"Last-Event-ID": "abc"})
    assert response.status_code == 400
    assert response.json()["field"] == "Last-Event-ID"


async def test_200_dropped_streams_leave_no_subscriber_behind(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    base = engine.events.subscriber_count
    for _ in range(10):
        async with trio.open_nursery() as nursery:
            for _ in range(20):
                nursery.start_soon(_open_and_drop, client)
    with trio.fail_after(20):
        await engine.events.wait_for_subscribers(lambda n: n == base)
    assert engine.events.subscriber_count == base


async def _open_and_drop(client: httpx.AsyncClient) -> None:
    async with client.stream("GET", "/event") as response:
        # First frames arrived: the server holds a subscription; drop it.
        await read_sse(response, 1)


async def test_keepalive_after_ten_idle_seconds(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db, open_event_log(db, TrioClock()) as log:
        frames = event_frames(log, EventFilter(), after_seq=None)
        start = trio.current_time()
        first = await frames.__anext__()
        assert first == KEEPALIVE
        assert trio.current_time() - start == 10.0
        await frames.aclose()
        assert log.subscriber_count == 0


async def test_runs_events_json_replay(client: httpx.AsyncClient, engine: svc.Engine) -> None:
    for i in range(4):
        engine.events.publish("session.status", {"sessionID": "s", "runID": "run-1", "i": i})
    engine.events.publish("session.status", {"sessionID": "s", "runID": "run-2"})
    await engine.events.flush()
    body = (await client.get("/runs/run-1/events", params={"since_seq": "0", "limit": "2"})).json()
    assert body["run_id"] == "run-1" and body["count"] == 2
    assert [e["payload"]["i"] for e in body["events"]] == [0, 1]
    assert body["events"][0]["event_type"] == "session.status"
    tail = (await client.get("/runs/run-1/events", params={"tail": "1"})).json()
    assert [e["payload"]["i"] for e in tail["events"]] == [3]
    legacy = (
        await client.get("/run/run-1/events", params={"since_seq": str(body["last_seq"])})
    ).json()
    assert [e["payload"]["i"] for e in legacy] == [2, 3]
