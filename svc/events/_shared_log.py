"""The event log of replicas sharing one PostgreSQL database.

Same interface as :class:`~svc.events._log.EventLog`; what differs:

* **seq comes from the database.** ``publish()`` queues a draft (seq 0); the
  writer's append numbers each batch after the highest seq in the shared log
  (:mod:`svc.events.shared_repository`), so seq order is commit order across
  every replica. ``publish()`` still never blocks, so the event it returns is
  a draft whose ``seq`` is 0 until its batch commits; the commit then fills in
  the real global seq (and the wire bytes) on that same object, so after
  ``await flush()`` (or :meth:`SharedEventLog.committed`) the caller holds
  the event as every replica delivers it.
* **Delivery follows the shared log, in order.** ``committed_seq`` is the
  highest seq delivered here, and events are handed to subscribers strictly in
  seq order with no gaps, whichever replica appended them: a replica's own
  batch goes out as soon as it commits when it directly follows what was
  delivered, and anything between (other replicas' events) is read back from
  the log first. Other replicas' commits arrive as ``NOTIFY`` payloads naming
  their last seq, and each replica reads those events back from the shared log,
  so an SSE client on any replica sees every event of every replica, in order,
  resumable with ``Last-Event-ID``.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

import trio

from ..clock import Clock
from ..errors import PersistenceFailed
from ..store import Store
from ._event import Event, run_id_of, session_id_of
from ._filter import MATCH_ALL
from ._log import BATCH_MAX, EventLog
from .repository import EventRepository
from .shared_repository import CHANNEL, SharedEventRepository

if TYPE_CHECKING:
    from ..store.postgresql import PgStore

log = logging.getLogger("svc.events")

READ_BACK_PAGE = 4096
"""Events read back from the shared log per query when catching up."""

GROUP_COMMIT_S = 0.010
"""Group commit: while events keep coming (some arrived during the last append), a
small batch that follows that append this closely waits out the rest of this window,
so a streaming run's events commit in a few larger appends rather than one per
published pair. An append here is several round trips of a Python driver on a worker
thread, and each one takes the GIL from the event loop that streams the run. On
bench_pg's run (20,000 streamed words) a run on PostgreSQL took 1.35-1.46x its time
on SQLite with a 3 ms window, 1.21-1.27x with 6 ms and 1.10-1.19x with 10 ms
(medians, alternating runs). An event published after the log went quiet is appended
at once, and a large batch never waits; during a stream delivery is at most this much
later, less than the 15 ms in which a run already merges streamed text
(svc/sessions/deltas.py)."""

GROUP_COMMIT_BATCH = 64
"""A batch at least this large is committed without waiting for the window."""


class SharedEventLog(EventLog):
    """The event log on a database several replicas share (see the module docstring)."""

    def __init__(
        self,
        repository: EventRepository,
        shared: SharedEventRepository,
        clock: Clock,
        *,
        last_seq: int,
        replica: str,
    ) -> None:
        super().__init__(repository, clock, last_seq=last_seq)
        self._shared = shared
        self.replica = replica
        self._deliver_lock = trio.Lock()
        self._published_here = 0
        self._committed_here = 0
        self._last_append_end = -math.inf
        self._streaming = False

    def publish(
        self,
        type: str,
        properties: Mapping[str, Any] | None = None,
        *,
        session_id: str | None = None,
        run_id: str | None = None,
        topic: str | None = None,
    ) -> Event:
        """Queue an event; never blocks. Its seq is 0 until committed, then the real one
        (module docstring)."""
        if self._closed:
            raise RuntimeError("the event log is closed")
        props = properties or {}
        draft = Event(
            0,
            self._event_id(0),
            type,
            props,
            self._clock.now_ms(),
            session_id or session_id_of(props),
            run_id or run_id_of(props),
            topic,
        )
        self._pending.append(draft)
        self._published_here += 1
        self.published_total += 1
        self._wakeup.set()
        return draft

    async def flush(self, seq: int | None = None) -> None:
        """Wait until every event published here (or every seq up to ``seq``) is
        committed and delivered here."""
        while True:
            if seq is None:
                done = self._committed_here >= self._published_here
            else:
                done = self.committed_seq >= seq
            if done or (self._closed and not self._pending):
                return
            await self._committed_changed.wait()

    def published_here(self, event: Event) -> bool:
        """Whether ``event`` was published by this replica (its id carries this log's prefix)."""
        return event.event_id.startswith(self._id_prefix)

    async def committed(self, draft: Event) -> int:
        """The global seq of ``draft`` (an event :meth:`publish` returned here), once it is
        committed and delivered here."""
        while draft.seq == 0 or self.committed_seq < draft.seq:
            if self._closed and not self._pending:
                raise RuntimeError("the event log closed before the event was committed")
            await self._committed_changed.wait()
        return draft.seq

    # ------------------------------------------------------------------ writer
    async def _commit_batch(self) -> None:
        window_end = self._last_append_end + GROUP_COMMIT_S
        if (
            self._streaming
            and len(self._pending) < GROUP_COMMIT_BATCH
            and trio.current_time() < window_end
        ):
            await trio.sleep_until(window_end)  # GROUP_COMMIT_S
        count = min(len(self._pending), BATCH_MAX)
        drafts = [self._pending[i] for i in range(count)]
        began = trio.current_time()
        try:
            events = await self._shared.append_numbered(drafts)
        except PersistenceFailed:
            # As on SQLite: keep the batch queued and retry with a backoff.
            self._write_failures += 1
            log.error("event append failed; retrying", extra={"attempt": self._write_failures})
            await trio.sleep(min(5.0, 0.05 * 2 ** min(self._write_failures, 7)))
            return
        self._write_failures = 0
        self._last_append_end = trio.current_time()
        if self.on_append is not None:  # the append latency metric, as on SQLite
            self.on_append(trio.current_time() - began, count)
        for draft, event in zip(drafts, events, strict=True):
            # The draft publish() returned is the caller's handle on its event:
            # it gets the seq the database gave it. Events are frozen (and
            # slotted) for everyone else; only the log that made the draft
            # finishes it, once, before any caller can have used the seq.
            object.__setattr__(draft, "seq", event.seq)
            object.__setattr__(draft, "data", event.data)
        for _ in range(count):
            self._pending.popleft()
        # Events arrived while this batch was being appended: a stream is under way,
        # and the next batch waits out the group-commit window. Otherwise the next
        # event, whenever it comes, is appended at once.
        self._streaming = bool(self._pending)
        self._committed_here += count
        await self._advance(own=events)

    # ------------------------------------------------------------------ delivery
    async def _advance(self, *, own: list[Event] | None = None, upto: int = 0) -> None:
        """Deliver every committed event up to ``own[-1].seq`` (or ``upto``), in order."""
        # One delivery at a time, so batches reach subscribers in seq order.
        async with self._deliver_lock:
            target = own[-1].seq if own else upto
            first_own = own[0].seq if own else target + 1
            while self.committed_seq < min(target, first_own - 1):
                # Other replicas' events come first: read them back from the log.
                page = await self._repository.page(
                    MATCH_ALL,
                    after=self.committed_seq,
                    before=min(target, first_own - 1) + 1,
                    limit=READ_BACK_PAGE,
                    newest_first=False,
                )
                if not page:
                    # Not visible yet (cannot happen with commit-ordered seqs);
                    # the next notification or commit retries.
                    log.warning("events below seq %d not found in the log", target)
                    break
                self._delivered(page)
            if own and self.committed_seq == own[0].seq - 1:
                self._delivered(own)
            elif own and self.committed_seq < own[-1].seq:
                # Only part of our own batch is new here (a catch-up read some).
                self._delivered([e for e in own if e.seq > self.committed_seq])
            # Our own batch is committed even when a catch-up delivered it.
            self._signal_committed()

    def _delivered(self, batch: list[Event]) -> None:
        # The seq moves with each delivered page, synchronously with the fan-out,
        # so a subscription starting between two pages misses nothing.
        self.committed_seq = batch[-1].seq
        self.last_seq = self.committed_seq
        self._subscribers.fan_out(batch)
        self._signal_committed()

    def _signal_committed(self) -> None:
        changed, self._committed_changed = self._committed_changed, trio.Event()
        changed.set()

    async def _on_notify(self, payloads: list[str]) -> None:
        """Other replicas committed: deliver up to the highest seq they name."""
        upto = 0
        for payload in payloads:
            replica, _, seq = payload.rpartition(":")
            if replica != self.replica and seq.isdigit():
                upto = max(upto, int(seq))
        if upto > self.committed_seq:
            await self._advance(upto=upto)

    async def _catch_up(self) -> None:
        """After a lost listening connection: deliver whatever was committed meanwhile."""
        await self._advance(upto=await self._repository.max_seq())


@asynccontextmanager
async def open_shared_event_log(db: Store, clock: Clock) -> AsyncIterator[SharedEventLog]:
    """Run the shared log's writer and its ``LISTEN`` for the duration of the block.

    On exit it commits what is queued, ends every stream, then stops listening.
    """
    repository = EventRepository(db)
    replica = secrets.token_hex(6)
    event_log = SharedEventLog(
        repository,
        SharedEventRepository(db, replica=replica),
        clock,
        last_seq=await repository.max_seq(),
        replica=replica,
    )
    pg = cast("PgStore", db)
    listener = trio.CancelScope()

    async def listen(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        with listener:
            await pg.listen(
                CHANNEL,
                event_log._on_notify,
                on_reconnect=event_log._catch_up,
                task_status=task_status,
            )

    async def write(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await event_log._run_writer(task_status=task_status)
        finally:
            listener.cancel()  # the log is closed: nothing more to deliver

    async with trio.open_nursery() as nursery:
        await nursery.start(listen)
        # Listening before the first catch-up: nothing committed in between is missed.
        await event_log._catch_up()
        await nursery.start(write)
        try:
            yield event_log
        finally:
            event_log.close()


__all__ = ["SharedEventLog", "open_shared_event_log"]
