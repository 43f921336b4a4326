"""The event log replicas share on PostgreSQL: seq from the database, cross-replica fan-out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import trio
import trio.testing

from svc.clock import TrioClock
from svc.events import Event, EventFilter, EventLog, EventStream, open_event_log
from svc.events._shared_log import GROUP_COMMIT_S, SharedEventLog
from svc.events.shared_repository import CHANNEL
from svc.store import Tx, open_store


@asynccontextmanager
async def replica(url: str, tmp_path: Path) -> AsyncIterator[EventLog]:
    async with open_store(url, state_dir=tmp_path) as db, open_event_log(db, TrioClock()) as log:
        yield log


async def test_a_postgresql_store_gets_the_shared_log(pg_url: str, tmp_path: Path) -> None:
    async with replica(pg_url, tmp_path) as log:
        assert isinstance(log, SharedEventLog)
        drafts = [log.publish("a.b", {"i": i}) for i in range(5)]
        assert {d.seq for d in drafts} == {0}  # numbered only at commit
        await log.flush()
        assert [e.seq for e in await log.replay()] == [1, 2, 3, 4, 5]
        assert log.committed_seq == log.last_seq == 5
        assert [d.seq for d in drafts] == [1, 2, 3, 4, 5]  # the real seqs, once committed
    async with replica(pg_url, tmp_path) as log:
        log.publish("a.b")
        await log.flush()
        assert [e.seq for e in await log.replay()] == [1, 2, 3, 4, 5, 6]


async def test_publish_returns_the_event_with_its_real_global_seq(
    pg_url: str, tmp_path: Path
) -> None:
    async with replica(pg_url, tmp_path) as a, replica(pg_url, tmp_path) as b:
        assert isinstance(a, SharedEventLog) and isinstance(b, SharedEventLog)
        first = a.publish("x", {"n": 1})
        await a.flush()
        second = b.publish("x", {"n": 2})
        assert await b.committed(second) == 2
        third = a.publish("x", {"n": 3})
        assert await a.committed(third) == 3
        stored = {e.seq: e for e in await a.replay()}
        for event in (first, second, third):
            # The same event every replica delivers: seq and wire bytes.
            assert stored[event.seq].event_id == event.event_id
            assert stored[event.seq].data == event.data
            assert b'"seq": %d' % event.seq in event.data or b'"seq":%d' % event.seq in event.data
        assert [first.seq, second.seq, third.seq] == [1, 2, 3]


async def test_events_of_one_replica_stream_to_a_client_of_the_other(
    pg_url: str, tmp_path: Path
) -> None:
    async with replica(pg_url, tmp_path) as a, replica(pg_url, tmp_path) as b:
        with EventStream(b, EventFilter(session_id="s1"), after_seq=0) as stream:
            a.publish("x", {"sessionID": "s2"})
            a.publish("x", {"sessionID": "s1", "n": 1})
            got = []
            with trio.fail_after(10):
                while len(got) < 1:
                    got += await stream.receive()
            assert [e.properties["n"] for e in got] == [1]
            assert got[0].seq == 2


async def test_concurrent_appends_reach_every_replica_in_one_order_without_gaps(
    pg_url: str, tmp_path: Path
) -> None:
    per_replica = 3000
    async with replica(pg_url, tmp_path) as a, replica(pg_url, tmp_path) as b:
        streams = [EventStream(a, after_seq=0), EventStream(b, after_seq=0)]
        seen: list[list[tuple[int, str, int]]] = [[], []]

        async def publish(log: EventLog, name: str) -> None:
            for i in range(per_replica):
                log.publish("burst", {"from": name, "i": i})
                if i % 100 == 0:
                    await trio.lowlevel.checkpoint()

        async def read(index: int) -> None:
            while len(seen[index]) < 2 * per_replica:
                for e in await streams[index].receive():
                    seen[index].append((e.seq, e.properties["from"], e.properties["i"]))

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read, 0)
                nursery.start_soon(read, 1)
                nursery.start_soon(publish, a, "a")
                nursery.start_soon(publish, b, "b")
        for s in streams:
            s.close()
    assert seen[0] == seen[1]
    assert [seq for seq, _, _ in seen[0]] == list(range(1, 2 * per_replica + 1))
    for name in ("a", "b"):  # each replica's own events keep their publish order
        assert [i for _, who, i in seen[0] if who == name] == list(range(per_replica))


async def test_a_late_replica_resumes_from_a_cursor_exactly(pg_url: str, tmp_path: Path) -> None:
    async with replica(pg_url, tmp_path) as a:
        for i in range(10):
            a.publish("t", {"i": i})
        await a.flush()
    async with replica(pg_url, tmp_path) as b:
        with EventStream(b, after_seq=7) as stream:
            with trio.fail_after(10):
                assert [e.seq for e in await stream.receive()] == [8, 9, 10]


async def test_a_stream_commits_in_few_appends_and_a_lone_event_at_once(
    pg_url: str, tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    async with replica(pg_url, tmp_path) as log:
        assert isinstance(log, SharedEventLog)
        appended: list[int] = []
        log.on_append = lambda _latency, count: appended.append(count)
        # A lone event is appended at once: no window after a quiet log.
        log.publish("first")
        started = trio.current_time()
        await log.flush()
        assert trio.current_time() - started < GROUP_COMMIT_S
        # Events that arrive while an append is under way mark a stream: the next
        # batch waits out the group-commit window and takes what came meanwhile.
        appending = trio.Event()
        append = log._shared.append_numbered

        async def observed(drafts: Sequence[Event]) -> list[Event]:
            appending.set()
            return await append(drafts)

        log._shared.append_numbered = observed  # type: ignore[method-assign]
        log.publish("stream", {"i": 0})
        await appending.wait()
        log.publish("stream", {"i": 1})  # during the append of event 0
        for i in range(2, 5):
            await trio.sleep(GROUP_COMMIT_S / 10)
            log.publish("stream", {"i": i})
        await log.flush()
        assert appended == [1, 1, 4]
        # Quiet again: the next event goes out at once.
        await trio.sleep(GROUP_COMMIT_S * 2)
        started = trio.current_time()
        log.publish("lone")
        await log.flush()
        assert trio.current_time() - started < GROUP_COMMIT_S
        assert appended == [1, 1, 4, 1]
        types = [e.type for e in await log.replay()]
        assert types == ["first"] + ["stream"] * 5 + ["lone"]


async def test_a_replica_whose_listening_connection_drops_catches_up(
    pg_url: str, tmp_path: Path
) -> None:
    async with replica(pg_url, tmp_path) as a, replica(pg_url, tmp_path) as b:
        with EventStream(b, after_seq=0) as stream:
            a.publish("before")
            with trio.fail_after(10):
                assert [e.type for e in await stream.receive()] == ["before"]
            # The server ends B's (and A's) LISTEN sessions, as a restart or a network
            # fault would; what A appends meanwhile still reaches B, in order.
            async with open_store(pg_url, state_dir=tmp_path) as db:
                ended = await db.write(_end_listeners)
            assert ended == 2
            a.publish("after", {"n": 1})
            a.publish("after", {"n": 2})
            got = []
            with trio.fail_after(10):
                while len(got) < 2:
                    got += await stream.receive()
            assert [(e.seq, e.properties["n"]) for e in got] == [(2, 1), (3, 2)]


def _end_listeners(tx: Tx) -> int:
    rows = tx.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE query = ? AND pid <> pg_backend_pid()",
        (f'LISTEN "{CHANNEL}"',),
    ).fetchall()
    return sum(1 for (ok,) in rows if ok)
