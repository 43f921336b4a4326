"""A resumable, gap-free view of the log: replay from a cursor, then live.

Every SSE endpoint reads one of these. ``receive()`` is cancel-safe (the cursor
only moves after a batch is handed over), so a keep-alive timeout around it
never loses an event.
"""

from __future__ import annotations

import trio

from ._event import Event
from ._filter import MATCH_ALL, EventFilter
from ._log import EventLog
from ._subscribers import Subscription

REPLAY_PAGE = 1000


class StreamEnded(Exception):
    """The log is shutting down; the client should reconnect with its cursor."""


class EventStream:
    """Events after ``after_seq`` (``None``: only events published from now on)."""

    def __init__(
        self, log: EventLog, filter: EventFilter = MATCH_ALL, *, after_seq: int | None = None
    ) -> None:
        self._log = log
        self.filter = filter
        self._sub: Subscription | None = None
        self._replay_until = 0
        self.cursor = after_seq if after_seq is not None else log.committed_seq

    async def receive(self) -> list[Event]:
        """The next non-empty batch, oldest first; raises :class:`StreamEnded`."""
        while True:
            if self._sub is None:
                # Subscribe before reading the log, so nothing committed in
                # between can fall into a gap.
                self._sub = self._log.subscribe(self.filter)
                self._replay_until = self._sub.start_seq
            if self.cursor < self._replay_until:
                page = await self._log.replay(
                    self.filter,
                    after_seq=self.cursor,
                    before_seq=self._replay_until + 1,
                    limit=REPLAY_PAGE,
                )
                if page:
                    self.cursor = page[-1].seq
                    return page
                self.cursor = self._replay_until
                continue
            try:
                batch = await self._sub.receive()
            except (trio.EndOfChannel, trio.ClosedResourceError):
                if self._sub.dropped:
                    # Fell behind: catch up from the log at our own pace.
                    self._sub.close()
                    self._sub = None
                    continue
                raise StreamEnded from None
            fresh = [e for e in batch if e.seq > self.cursor]
            if fresh:
                self.cursor = fresh[-1].seq
                return fresh

    def close(self) -> None:
        """Synchronous, so it is safe in the ``finally`` of a cancelled generator."""
        if self._sub is not None:
            self._sub.close()
            self._sub = None

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
