"""The event log: global seq, group-committed appends, live fan-out.

``publish()`` is synchronous and never blocks: it assigns the next ``seq`` and
queues the event. The log's writer task drains the queue in batches, appends
each batch in one transaction, and only then fans the batch out to live
subscribers. So every event a client ever sees is already durable, and a
client resuming from its last seq replays exactly what it missed.

Subscribers have bounded buffers. One that falls behind is cut off (its
subscription ends with ``dropped`` set) instead of slowing the writer; the
stream helper then catches up from the log on its own.
"""

from __future__ import annotations

import logging
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import trio

from ..clock import Clock
from ..errors import PersistenceFailed
from ..store import Store
from ._event import Event, make_event
from ._filter import MATCH_ALL, EventFilter
from ._subscribers import SubscriberIndex, Subscription
from .repository import EventRepository

log = logging.getLogger("svc.events")

BATCH_MAX = 4096
"""Events per append transaction; bigger bursts take several batches."""

FINAL_ATTEMPTS = 3
"""Append attempts made for queued events while the log shuts down."""

SUBSCRIBER_BUFFER = 256
"""Batches a subscriber may hold unread before it is cut off."""


class EventLog:
    """Publish, persist and fan out events. Start it with :func:`open_event_log`."""

    def __init__(self, repository: EventRepository, clock: Clock, *, last_seq: int) -> None:
        self._repository = repository
        self._clock = clock
        self.last_seq = last_seq
        """Highest seq handed out."""
        self.committed_seq = last_seq
        """Highest seq durably appended and delivered."""
        self.subscriber_buffer = SUBSCRIBER_BUFFER
        """Default buffer of a new subscription (the engine sets it from its settings)."""
        self.on_append: Callable[[float, int], None] | None = None
        """Told each committed batch's append latency (seconds) and size (metrics)."""
        """Default buffer of a new subscription (the engine sets it from its settings)."""
        self._pending: deque[Event] = deque()
        self._wakeup = trio.Event()
        self._committed_changed = trio.Event()
        self._closed = False
        self._streams_ended = False
        self._subscribers_changed = trio.Event()
        self._subscribers = SubscriberIndex()
        self.published_total = 0
        self._write_failures = 0
        # Event ids are UUID-shaped (version 4 layout): a random per-process
        # prefix plus a counter, so they are unique across restarts yet cost no
        # system call per event.
        rand = uuid.uuid4().hex
        self._id_prefix = (
            f"{rand[:8]}-{rand[8:12]}-4{rand[13:16]}-{'89ab'[int(rand[16], 16) % 4]}{rand[17:20]}-"
        )
        self._id_counter = 0

    # ------------------------------------------------------------------ publish
    def _event_id(self, seq: int) -> str:
        self._id_counter += 1
        return f"{self._id_prefix}{self._id_counter & 0xFFFFFFFFFFFF:012x}"

    def publish(
        self,
        type: str,
        properties: Mapping[str, Any] | None = None,
        *,
        session_id: str | None = None,
        run_id: str | None = None,
        topic: str | None = None,
    ) -> Event:
        """Queue an event for durable append and live delivery; never blocks."""
        if self._closed:
            raise RuntimeError("the event log is closed")
        self.last_seq += 1
        event = make_event(
            seq=self.last_seq,
            event_id=self._event_id(self.last_seq),
            type=type,
            properties=properties or {},
            occurred_at_ms=self._clock.now_ms(),
            session_id=session_id,
            run_id=run_id,
            topic=topic,
        )
        self._pending.append(event)
        self.published_total += 1
        self._wakeup.set()
        return event

    async def flush(self, seq: int | None = None) -> None:
        """Wait until every event up to ``seq`` (default: all published) is committed."""
        target = self.last_seq if seq is None else seq
        while self.committed_seq < target:
            if self._closed and not self._pending:
                return
            await self._committed_changed.wait()

    # ------------------------------------------------------------------ subscribe
    def subscribe(
        self, filter: EventFilter = MATCH_ALL, *, buffer: int | None = None
    ) -> Subscription:
        buffer = self.subscriber_buffer if buffer is None else buffer
        sub = Subscription(filter, buffer, start_seq=self.committed_seq, on_close=self._unsubscribe)
        # After end_streams, a stream that subscribes late (a request that was
        # still sending its preamble) must end too, not linger until the HTTP
        # server's grace period cuts it off.
        if self._closed or self._streams_ended:
            sub.close()
            return sub
        self._subscribers.add(sub)
        self._notify_subscribers_changed()
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        self._subscribers.remove(sub)
        self._notify_subscribers_changed()

    def _notify_subscribers_changed(self) -> None:
        changed, self._subscribers_changed = self._subscribers_changed, trio.Event()
        changed.set()

    async def wait_for_subscribers(self, predicate: Callable[[int], bool]) -> None:
        """Wait until ``predicate(subscriber_count)`` holds (for tests and shutdown)."""
        while not predicate(self.subscriber_count):
            await self._subscribers_changed.wait()

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    # ------------------------------------------------------------------ replay
    async def replay(
        self,
        filter: EventFilter = MATCH_ALL,
        *,
        after_seq: int = 0,
        before_seq: int | None = None,
        limit: int = 1000,
        tail: bool = False,
    ) -> list[Event]:
        """Committed events matching ``filter`` with ``after_seq < seq < before_seq``.

        Oldest first. With ``tail`` the newest ``limit`` of them (still oldest first).
        """
        upper = (
            self.committed_seq + 1
            if before_seq is None
            else min(before_seq, self.committed_seq + 1)
        )
        page_size = max(limit, 256)
        found: list[Event] = []
        lower = after_seq
        # SQL narrows by the indexed key; conditions it cannot express are
        # checked here, page by page, until `limit` matches are found.
        while len(found) < limit:
            page = await self._repository.page(
                filter, after=lower, before=upper, limit=page_size, newest_first=tail
            )
            found.extend(e for e in page if filter.matches(e))
            if len(page) < page_size:
                break
            if tail:
                upper = page[-1].seq
            else:
                lower = page[-1].seq
        found = found[:limit]
        if tail:
            found.reverse()
        return found

    async def earliest_seq(self, filter: EventFilter = MATCH_ALL) -> int | None:
        page = await self.replay(filter, limit=1)
        return page[0].seq if page else None

    # ------------------------------------------------------------------ writer
    async def _run_writer(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        task_status.started()
        try:
            while not (self._closed and not self._pending):
                if not self._pending:
                    self._wakeup = trio.Event()
                    await self._wakeup.wait()
                    continue
                await self._commit_batch()
        finally:
            # Shielded: the engine may be stopping because it was cancelled, and
            # events already published are the audit trail: they must land. It
            # is bounded by what is queued and by the failure cap.
            with trio.CancelScope(shield=True):
                while self._pending and self._write_failures < FINAL_ATTEMPTS:
                    await self._commit_batch()
                if self._pending:
                    log.error("event log closed with %d events not committed", len(self._pending))
            self._close_subscribers()

    async def _commit_batch(self) -> None:
        count = min(len(self._pending), BATCH_MAX)
        batch = [self._pending[i] for i in range(count)]
        began = trio.current_time()
        try:
            await self._repository.append(batch)
        except PersistenceFailed:
            # Keep the batch queued and retry: events are the audit trail, and a
            # transient disk error must not lose them. Back off so a broken disk
            # does not spin the CPU.
            self._write_failures += 1
            log.error("event append failed; retrying", extra={"attempt": self._write_failures})
            await trio.sleep(min(5.0, 0.05 * 2 ** min(self._write_failures, 7)))
            return
        self._write_failures = 0
        if self.on_append is not None:
            self.on_append(trio.current_time() - began, count)
        for _ in range(count):
            self._pending.popleft()
        self.committed_seq = batch[-1].seq
        self._subscribers.fan_out(batch)
        changed, self._committed_changed = self._committed_changed, trio.Event()
        changed.set()

    def _close_subscribers(self) -> None:
        self._subscribers.close_all()

    def close(self) -> None:
        """Stop accepting events; the writer commits what is queued, then ends streams."""
        self._closed = True
        self._wakeup.set()

    def end_streams(self) -> None:
        """End every live subscription now, and every later one at once
        (graceful shutdown: open SSE streams finish)."""
        self._streams_ended = True
        self._close_subscribers()


@asynccontextmanager
async def open_event_log(db: Store, clock: Clock) -> AsyncIterator[EventLog]:
    """Run the event log's writer for the duration of the block.

    On exit the log stops accepting events, commits everything already queued
    (so in-flight events of a shutdown are not lost) and ends every live stream.
    On PostgreSQL it is the log several replicas share (:mod:`._shared_log`).
    """
    if db.kind == "postgresql":
        from ._shared_log import open_shared_event_log  # PostgreSQL only: not at start-up

        async with open_shared_event_log(db, clock) as shared:
            yield shared
        return
    repository = EventRepository(db)
    event_log = EventLog(repository, clock, last_seq=await repository.max_seq())
    async with trio.open_nursery() as nursery:
        await nursery.start(event_log._run_writer)
        try:
            yield event_log
        finally:
            # The writer commits what is queued, ends every stream and returns;
            # the nursery waits for it.
            event_log.close()
