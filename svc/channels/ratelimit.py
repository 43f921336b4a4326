"""Per-user rate limits for channel prompts.

A sliding window per ``(channel, user)``: at most ``limit`` prompts within
``window`` seconds; the next is refused with the seconds until the oldest one
leaves the window. Time is trio's clock, so MockClock tests are exact. The
channel adapters and ``POST /session/{id}/prompt_sync`` on a channel session
share one limiter, so a user cannot go around the chat limit through the API.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from typing import Any

import trio

from ..errors import SvcError


class ChannelRateLimited(SvcError):
    """Too many prompts from this chat user; wait and try again"""

    code = "RATE_LIMITED"
    status = 429
    retryable = True

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(retryAfterSeconds=retry_after_s)
        self.retry_after_s = retry_after_s


class RateLimiter:
    """Sliding-window admission per key (see the module docstring)."""

    def __init__(self) -> None:
        self._hits: dict[tuple[str, str], deque[float]] = {}

    def admit(self, channel: str, user: str, *, limit: int, window_s: float) -> int | None:
        """Record one prompt and return None, or return the seconds to wait (nothing recorded)."""
        now = trio.current_time()
        hits = self._hits.setdefault((channel, user), deque())
        while hits and hits[0] <= now - window_s:
            hits.popleft()
        if len(hits) >= limit:
            return max(1, math.ceil(hits[0] + window_s - now))
        hits.append(now)
        return None

    def check(self, channel: str, user: str, *, limit: int, window_s: float) -> None:
        """:meth:`admit`, raising :class:`ChannelRateLimited` (429 with ``Retry-After``)."""
        wait = self.admit(channel, user, limit=limit, window_s=window_s)
        if wait is not None:
            raise ChannelRateLimited(wait)

    def forget(self, channel: str) -> None:
        for key in [k for k in self._hits if k[0] == channel]:
            del self._hits[key]


def channel_user_of(
    source_kind: str | None, metadata: Mapping[str, Any] | None
) -> tuple[str, str] | None:
    """``(channel, user)`` of a session a channel created, else None."""
    if source_kind != "channel" or not metadata:
        return None
    channel, user = metadata.get("channel"), metadata.get("user_id")
    if not isinstance(channel, str) or user is None:
        return None
    return channel, str(user)


__all__ = ["ChannelRateLimited", "RateLimiter", "channel_user_of"]
