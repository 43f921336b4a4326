"""Live subscribers of the event log and the index that routes batches to them.

A subscription is a bounded channel of batches. The index keeps subscribers
whose filter names a session, a run or a topic under that key, so fanning a
batch out touches only the subscribers an event can concern; the rest (filters
without such a key) see every batch.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable

import trio

from ._event import Event
from ._filter import MATCH_ALL, EventFilter


class Subscription:
    """A live view of the log. Iterate it for batches (lists) of matching events.

    Closing is synchronous, so it is safe in a ``finally`` of a cancelled
    generator. Iteration ends when the subscription is closed, when the log shuts
    down, or when the subscriber fell behind (``dropped`` is then true).
    """

    def __init__(
        self,
        filter: EventFilter,
        buffer: int,
        *,
        start_seq: int,
        on_close: Callable[[Subscription], None],
    ) -> None:
        self.filter = filter
        self.send, self._receive = trio.open_memory_channel[list[Event]](buffer)
        self.start_seq = start_seq
        """Every event after this seq is delivered live; the rest is in the log."""
        self.dropped = False
        self.closed = False
        self._on_close = on_close

    def deliver(self, events: list[Event]) -> None:
        try:
            self.send.send_nowait(events)
        except trio.WouldBlock:
            # The reader is too slow: cut it off rather than slow the writer.
            self.dropped = True
            self.close()
        except trio.ClosedResourceError:
            pass

    async def receive(self) -> list[Event]:
        """The next batch; raises ``trio.EndOfChannel`` when the subscription ended."""
        return await self._receive.receive()

    def __aiter__(self) -> AsyncIterator[list[Event]]:
        return self._receive.__aiter__()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.send.close()
            self._on_close(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        self._receive.close()


class SubscriberIndex:
    """Every live subscription, routed by its filter's index key."""

    def __init__(self) -> None:
        self._global: set[Subscription] = set()
        self._indexed: dict[tuple[str, str], set[Subscription]] = {}

    def add(self, sub: Subscription) -> None:
        key = sub.filter.index_key
        if key is None:
            self._global.add(sub)
        else:
            self._indexed.setdefault(key, set()).add(sub)

    def remove(self, sub: Subscription) -> None:
        key = sub.filter.index_key
        if key is None:
            self._global.discard(sub)
        else:
            subs = self._indexed.get(key)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._indexed[key]

    def __len__(self) -> int:
        return len(self._global) + sum(len(s) for s in self._indexed.values())

    def fan_out(self, batch: list[Event]) -> None:
        """Hand each subscriber the events of ``batch`` its filter matches."""
        for sub in list(self._global):
            matching = (
                batch if sub.filter is MATCH_ALL else [e for e in batch if sub.filter.matches(e)]
            )
            if matching:
                sub.deliver(matching)
        if not self._indexed:
            return
        routed: dict[tuple[str, str], list[Event]] = {}
        for event in batch:
            for key in _keys_of(event):
                if key in self._indexed:
                    routed.setdefault(key, []).append(event)
        for key, events in routed.items():
            for sub in list(self._indexed.get(key, ())):
                matching = [e for e in events if sub.filter.matches(e)]
                if matching:
                    sub.deliver(matching)

    def close_all(self) -> None:
        for sub in list(self._global):
            sub.close()
        for subs in list(self._indexed.values()):
            for sub in list(subs):
                sub.close()


def _keys_of(event: Event) -> Iterable[tuple[str, str]]:
    if event.session_id is not None:
        yield ("session", event.session_id)
    if event.run_id is not None:
        yield ("run", event.run_id)
    if event.topic is not None:
        yield ("topic", event.topic)


__all__ = ["SubscriberIndex", "Subscription"]
