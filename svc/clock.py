"""Wall-clock time behind a small protocol, so timed logic is exact under MockClock.

Logic never calls ``time.time()`` directly: it asks the engine's clock. In
production that is :class:`SystemClock`; tests use :class:`TrioClock`, whose wall
time advances with ``trio.current_time()`` (and therefore with a MockClock).
"""

from __future__ import annotations

import time
from typing import Protocol

import trio


class Clock(Protocol):
    def now_ms(self) -> int:
        """Milliseconds since the Unix epoch."""
        ...

    def to_trio_time(self, wall_ms: int) -> float:
        """The ``trio.current_time()`` value at which wall time reaches ``wall_ms``."""
        ...


class SystemClock:
    """The real wall clock (survives suspend and clock changes, unlike monotonic time)."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def to_trio_time(self, wall_ms: int) -> float:
        return trio.current_time() + (wall_ms - self.now_ms()) / 1000.0


class TrioClock:
    """Wall time anchored to trio's clock: ``epoch_ms`` at trio time ``anchor``."""

    def __init__(self, epoch_ms: int = 1_767_225_600_000, anchor: float | None = None) -> None:
        self._epoch_ms = epoch_ms
        self._anchor = anchor

    def _anchor_time(self) -> float:
        if self._anchor is None:
            self._anchor = trio.current_time()
        return self._anchor

    def now_ms(self) -> int:
        return self._epoch_ms + round((trio.current_time() - self._anchor_time()) * 1000)

    def to_trio_time(self, wall_ms: int) -> float:
        return self._anchor_time() + (wall_ms - self._epoch_ms) / 1000.0


__all__ = ["Clock", "SystemClock", "TrioClock"]
