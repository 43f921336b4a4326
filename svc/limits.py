"""Engine-wide bounds that answer "not now" (429 with ``Retry-After``) when reached.

Each bound is a counter of slots held by live work: a run, an SSE stream. Taking a
slot never waits: past the limit the caller gets a :class:`LimitReached` at once,
so a flood is refused cheaply instead of queueing in memory. Limits come from the
settings (docs/configuration.md, "Limits").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from .errors import SvcError


class LimitReached(SvcError):
    """A configured limit is reached; retry later."""

    code = "LIMIT_REACHED"
    status = 429
    retryable = True
    retry_after_s: ClassVar[int] = 1
    """Sent as the ``Retry-After`` header (seconds) and ``retryAfterMs`` in the body."""

    def __init__(self, message: str | None = None, *, limit: int, **extra: Any) -> None:
        super().__init__(message, limit=limit, retryAfterMs=self.retry_after_s * 1000, **extra)


class RunLimitReached(LimitReached):
    """The engine is running as many runs as it is allowed to; retry shortly."""

    code = "RUN_LIMIT_REACHED"
    retry_after_s = 2


class StreamLimitReached(LimitReached):
    """This client has as many event streams open as it is allowed to."""

    code = "STREAM_LIMIT_REACHED"
    retry_after_s = 5


class Slots:
    """At most ``limit`` holders at once (``limit`` may change on a settings reload)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_use = 0

    def acquire(self) -> None:
        """Take a slot or raise :class:`RunLimitReached`; pair with :meth:`release`."""
        if self.in_use >= self.limit:
            raise RunLimitReached(
                f"the engine already runs {self.in_use} runs (max_concurrent_runs "
                f"{self.limit}); retry shortly",
                limit=self.limit,
            )
        self.in_use += 1

    def release(self) -> None:
        self.in_use = max(0, self.in_use - 1)


class ClientStreams:
    """Open event streams per client (its remote address), at most ``limit`` each."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    @property
    def total(self) -> int:
        return sum(self._open.values())

    def count(self, client: str) -> int:
        return self._open[client]

    def acquire(self, client: str) -> None:
        """Take one stream slot of ``client`` or raise; pair with :meth:`release`."""
        if self._open[client] >= self.limit:
            raise StreamLimitReached(
                f"this client already has {self._open[client]} event streams open "
                f"(max_sse_streams_per_client {self.limit}); close one or retry later",
                limit=self.limit,
            )
        self._open[client] += 1

    def release(self, client: str) -> None:
        self._open[client] -= 1
        if self._open[client] <= 0:
            del self._open[client]

    @contextmanager
    def hold(self, client: str) -> Iterator[None]:
        """Hold one stream slot of ``client`` for the block."""
        self.acquire(client)
        try:
            yield
        finally:
            self.release(client)


__all__ = ["ClientStreams", "LimitReached", "RunLimitReached", "Slots", "StreamLimitReached"]
