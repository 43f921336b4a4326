"""Turns by key: work on one key runs one at a time, in arrival order.

For read-modify-write of a *stored* entity that has no actor of its own (a
routine's run admission, a plan's revision, a mission's reducer): the state
lives in the store, so an actor per key would hold nothing between messages
and would need activation, supervision and a stop for each key. ``SerialByKey``
gives the property the actor would (one change at a time per entity, first
come first served) with no task per key; a key's entry exists only while
somebody holds or waits for its turn.

::

    serial = SerialByKey()
    async with serial.turn(plan_id):
        plan = await repo.get(plan_id)
        await repo.save(revise(plan))

Cancellation: a caller cancelled while waiting leaves the queue (the next
waiter moves up); one cancelled while holding its turn releases it on the way
out, so a key is never left locked.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager

import trio


class SerialByKey:
    def __init__(self) -> None:
        self._turns: dict[Hashable, trio.Lock] = {}

    def busy(self, key: Hashable) -> bool:
        """True while some caller holds or waits for ``key``'s turn."""
        return key in self._turns

    def __len__(self) -> int:
        return len(self._turns)

    @asynccontextmanager
    async def turn(self, key: Hashable) -> AsyncIterator[None]:
        # trio.Lock is fair (FIFO), which is what gives arrival order.
        lock = self._turns.setdefault(key, trio.Lock())
        try:
            async with lock:
                yield
        finally:
            idle = not lock.locked() and lock.statistics().tasks_waiting == 0
            if idle and self._turns.get(key) is lock:
                # Nobody holds or waits: forget the key, so the map stays as small
                # as the set of keys in use.
                del self._turns[key]


__all__ = ["SerialByKey"]
