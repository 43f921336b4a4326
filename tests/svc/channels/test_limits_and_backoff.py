"""The per-user rate limit window and the listener's reconnect backoff, under MockClock."""

from __future__ import annotations

import itertools
from typing import Any, cast

import pytest
import trio
import trio.testing

from svc.channels.config import ChannelConfig
from svc.channels.context import ChannelContext
from svc.channels.listener import ChannelListener, ListenerStatus
from svc.channels.ratelimit import RateLimiter
from svc.clock import TrioClock


async def test_the_eleventh_prompt_in_the_window_waits_for_the_oldest_to_leave(
    autojump_clock: trio.testing.MockClock,
) -> None:
    limiter = RateLimiter()
    for _ in range(10):
        assert limiter.admit("telegram", "42", limit=10, window_s=60) is None
        await trio.sleep(1)
    assert limiter.admit("telegram", "42", limit=10, window_s=60) == 50
    assert limiter.admit("telegram", "43", limit=10, window_s=60) is None  # per user
    await trio.sleep(50)
    assert limiter.admit("telegram", "42", limit=10, window_s=60) is None


class _Context:
    def __init__(self) -> None:
        self.statuses: dict[str, ListenerStatus] = {}
        self.clock = TrioClock()

    def status_of(self, name: str) -> ListenerStatus:
        return self.statuses.setdefault(name, ListenerStatus())

    def now_ms(self) -> int:
        return self.clock.now_ms()

    def scrub(self, text: str) -> str:
        return text


class Flaky(ChannelListener):
    name = "flaky"

    def __init__(self, context: Any, failures: int) -> None:
        super().__init__(cast(ChannelContext, context), ChannelConfig())
        self.failures = failures
        self.attempts: list[float] = []

    async def session(self) -> None:
        self.attempts.append(trio.current_time())
        if len(self.attempts) <= self.failures:
            raise OSError("connection refused")
        self.mark_connected()
        await trio.sleep(100)  # a connection that got going, then dropped
        raise OSError("connection reset")


async def test_reconnects_back_off_exponentially_and_reset_after_a_good_connection(
    autojump_clock: trio.testing.MockClock,
) -> None:
    listener = Flaky(_Context(), failures=8)
    async with trio.open_nursery() as nursery:
        await nursery.start(listener.run)
        await listener.connected.wait()
        await trio.sleep(101.5)  # the good connection dropped; one quick retry happened
        nursery.cancel_scope.cancel()
    delays = [b - a for a, b in itertools.pairwise(listener.attempts)]
    assert delays[:8] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert delays[8] == 100 + 1  # after a connection that got going: back to 1 s
    assert listener.status.last_error == "connection reset"
    assert listener.status.reconnects == 9


async def test_a_batch_whose_offset_was_not_stored_has_no_effect() -> None:
    from svc.channels.listener import PlatformError
    from svc.channels.telegram import _Recorded

    stored, failed = _Recorded(), _Recorded()
    stored.ok = True
    stored.done.set()
    failed.done.set()  # the write raised: `ok` stayed false
    await stored.wait()
    with pytest.raises(PlatformError, match="offset could not be stored"):
        await failed.wait()
