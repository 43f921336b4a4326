"""Restart intensity: at most ``max_restarts`` restarts within any ``max_seconds`` window."""

from __future__ import annotations

from collections import deque

import trio


class RestartIntensity:
    """Sliding window of restart times, in trio time (so MockClock drives it in tests)."""

    def __init__(self, max_restarts: int, max_seconds: float) -> None:
        if max_restarts < 0 or max_seconds < 0:
            raise ValueError("max_restarts and max_seconds must be >= 0")
        self.max_restarts = max_restarts
        self.max_seconds = max_seconds
        self._times: deque[float] = deque()

    def allow_restart(self) -> bool:
        """Record a restart now and return True, or return False if it would exceed the limit.

        Exceeded means: ``max_restarts`` restarts already happened within the last
        ``max_seconds``, so this one would be one more than allowed.
        """
        now = trio.current_time()
        times = self._times
        while times and times[0] <= now - self.max_seconds:
            times.popleft()
        if len(times) >= self.max_restarts:
            return False
        times.append(now)
        return True
