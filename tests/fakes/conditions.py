"""Waiting for a fake server's state to satisfy a condition, without sleeping."""

from __future__ import annotations

from collections.abc import Callable

import trio


class Changes:
    """``await changes.until(predicate)`` returns once ``predicate()`` holds; ``notify()``
    re-checks the waiters (call it after every change of the watched state)."""

    def __init__(self) -> None:
        self._event = trio.Event()

    def notify(self) -> None:
        self._event.set()
        self._event = trio.Event()

    async def until(self, predicate: Callable[[], object]) -> None:
        while not predicate():
            await self._event.wait()
