from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from svc.clock import TrioClock
from svc.events import EventFilter, EventStream, StreamEnded, open_event_log
from svc.store import open_sqlite_store


async def test_seq_is_global_monotonic_and_survives_restart(tmp_path: Path) -> None:
    path = tmp_path / "svc.db"
    async with open_sqlite_store(path) as db, open_event_log(db, TrioClock()) as log:
        seqs = [log.publish("a.b", {"i": i}).seq for i in range(5)]
    assert seqs == [1, 2, 3, 4, 5]
    async with open_sqlite_store(path) as db, open_event_log(db, TrioClock()) as log:
        assert log.publish("a.b").seq == 6
        await log.flush()
        replayed = await log.replay()
        assert [e.seq for e in replayed] == [1, 2, 3, 4, 5, 6]


async def test_events_published_before_shutdown_are_committed(tmp_path: Path) -> None:
    path = tmp_path / "svc.db"
    async with open_sqlite_store(path) as db, open_event_log(db, TrioClock()) as log:
        for i in range(10_000):
            log.publish("burst", {"i": i})
        # no flush: leaving the block must commit what is queued
    async with open_sqlite_store(path) as db:
        count = await db.read(lambda c: c.execute("SELECT count(*) FROM events").fetchone()[0])
    assert count == 10_000


async def test_wire_form_has_the_envelope(tmp_path: Path) -> None:
    async with (
        open_sqlite_store(tmp_path / "svc.db") as db,
        open_event_log(db, TrioClock(epoch_ms=1000)) as log,
    ):
        event = log.publish(
            "message.part.updated", {"sessionID": "s1", "runID": "r1", "delta": "hi"}
        )
        wire = json.loads(event.data)
    assert wire["type"] == "message.part.updated"
    assert wire["properties"] == {"sessionID": "s1", "runID": "r1", "delta": "hi"}
    env = wire["envelope"]
    assert env["seq"] == event.seq and env["schema_version"] == 1
    assert env["session_id"] == "s1" and env["run_id"] == "r1"
    assert env["occurred_at_ms"] == 1000
    assert len(env["event_id"]) == 36 and env["event_id"][14] == "4"


async def test_live_subscribers_get_only_committed_matching_events(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db, open_event_log(db, TrioClock()) as log:
        with log.subscribe(EventFilter(session_id="s1")) as sub:
            log.publish("x", {"sessionID": "s2"})
            mine = log.publish("x", {"sessionID": "s1"})
            batch = await sub.receive()
            assert [e.seq for e in batch] == [mine.seq]
            assert log.committed_seq >= mine.seq  # delivered only after the append


async def test_run_filter_admits_session_events_only_with_a_session_filter() -> None:
    from svc.events._event import make_event

    def ev(**props: str) -> object:
        return make_event(
            seq=1,
            event_id="e",
            type="t",
            properties=props,
            occurred_at_ms=0,
            session_id=None,
            run_id=None,
            topic=None,
        )

    run_only = EventFilter(run_id="r1")
    both = EventFilter(session_id="s1", run_id="r1")
    assert run_only.matches(ev(runID="r1"))
    assert not run_only.matches(ev(runID="r2"))
    assert not run_only.matches(ev(sessionID="s1"))
    assert both.matches(ev(sessionID="s1"))
    assert not both.matches(ev(sessionID="s1", runID="r2"))
    assert not both.matches(ev(sessionID="s2"))


async def test_a_slow_subscriber_is_cut_off_without_slowing_the_publisher(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db, open_event_log(db, TrioClock()) as log:
        slow = log.subscribe(buffer=2)
        fast_seen = 0
        with log.subscribe(buffer=10_000) as fast:
            for _ in range(5):
                for i in range(100):
                    log.publish("burst", {"i": i})
                await log.flush()
            while fast_seen < 500:
                fast_seen += len(await fast.receive())
        assert slow.dropped
        assert fast_seen == 500
        assert log.subscriber_count == 0


async def test_stream_replays_then_goes_live_without_gaps_or_duplicates(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db, open_event_log(db, TrioClock()) as log:
        for i in range(20):
            log.publish("e", {"i": i})
        await log.flush()
        seen: list[int] = []
        with EventStream(log, after_seq=5) as stream:
            while len(seen) < 15:
                seen.extend(e.seq for e in await stream.receive())
            for i in range(5):
                log.publish("e", {"i": i})
            while len(seen) < 20:
                seen.extend(e.seq for e in await stream.receive())
        assert seen == list(range(6, 26))


async def test_stream_catches_up_from_the_log_after_being_dropped(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db, open_event_log(db, TrioClock()) as log:
        seen: list[int] = []
        with EventStream(log, after_seq=0) as stream:
            log.publish("first")
            seen.extend(e.seq for e in await stream.receive())
            # Overflow the live buffer while the reader is not reading.
            for _ in range(400):
                log.publish("e")
                await log.flush()
            while len(seen) < 401:
                seen.extend(e.seq for e in await stream.receive())
        assert seen == list(range(1, 402))


async def test_stream_ends_when_the_log_ends_streams(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db, open_event_log(db, TrioClock()) as log:
        outcome: list[str] = []

        async def reader() -> None:
            with EventStream(log) as stream:
                try:
                    await stream.receive()
                except StreamEnded:
                    outcome.append("ended")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(reader)
            await log.wait_for_subscribers(lambda n: n == 1)
            log.end_streams()
        assert outcome == ["ended"]
        assert log.subscriber_count == 0


async def test_a_stream_that_subscribes_after_streams_ended_ends_at_once(tmp_path: Path) -> None:
    # An SSE request still writing its preamble when shutdown began subscribes late.
    async with open_sqlite_store(tmp_path / "svc.db") as db, open_event_log(db, TrioClock()) as log:
        log.end_streams()
        log.publish("e", {})
        # (fail_after only turns a hang, the bug, into a failure)
        with (
            trio.fail_after(10),
            EventStream(log, after_seq=log.last_seq) as stream,
            pytest.raises(StreamEnded),
        ):
            await stream.receive()
        assert log.subscriber_count == 0


async def test_replay_tail_and_limits(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db, open_event_log(db, TrioClock()) as log:
        for i in range(10):
            log.publish("e", {"runID": "r1" if i % 2 else "r2"})
        await log.flush()
        tail = await log.replay(EventFilter(run_id="r1"), limit=2, tail=True)
        assert [e.seq for e in tail] == [8, 10]
        head = await log.replay(EventFilter(run_id="r1"), after_seq=2, limit=2)
        assert [e.seq for e in head] == [4, 6]
