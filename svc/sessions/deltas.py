"""Streamed text to events, with bursts merged.

A model that streams slowly (tens of tokens a second) gets one event per delta,
published at once. A model that streams faster than the merge window (a local
model, a replay, a fast provider) would otherwise turn every tiny delta into
its own event, its own database row and its own SSE frame; here deltas that
arrive within ``window`` seconds of the last publication are merged and
published when the window closes, or sooner if the merged text grows past
``max_chars``. Clients that concatenate ``delta`` see exactly the same text.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

WINDOW_SECONDS = 0.015
MAX_CHARS = 4000


class DeltaCoalescer:
    def __init__(
        self,
        emit: Callable[[str], None],
        *,
        window: float = WINDOW_SECONDS,
        max_chars: int = MAX_CHARS,
    ) -> None:
        self._emit = emit
        self._window = window
        self._max_chars = max_chars
        self._pending: list[str] = []
        self._pending_chars = 0
        self._last_emit = -float("inf")
        # Whether a publication happened less than `window` ago. A flag, closed by
        # run(), rather than a clock reading per delta: add() is called once per
        # streamed token, and reading trio's clock was a measurable share of it.
        self._window_open = False
        self._armed = trio.Event()

    def add(self, delta: str) -> None:
        """Take one delta (synchronous: called from the provider's sink)."""
        if not delta:
            return
        if not self._pending and not self._window_open:
            self._emit(delta)
            self._opened()
            return
        self._pending.append(delta)
        self._pending_chars += len(delta)
        if self._pending_chars >= self._max_chars:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._pending_chars = 0
            self._emit(text)
            self._opened()

    def _opened(self) -> None:
        self._window_open = True
        self._last_emit = trio.current_time()
        self._armed.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Publish what waits when its window closes.

        Cancel it when the stream ends, then ``flush()``.
        """
        task_status.started()
        while True:
            await self._armed.wait()
            self._armed = trio.Event()
            await trio.sleep_until(self._last_emit + self._window)
            if self._pending:
                self.flush()  # publishes, and opens the next window
            elif trio.current_time() >= self._last_emit + self._window:
                self._window_open = (
                    False  # quiet for a whole window: the next delta goes out at once
                )
