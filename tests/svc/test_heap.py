"""Freed heap memory goes back to the system on a schedule (svc/heap.py)."""

from __future__ import annotations

import sys
import threading

import pytest
import trio
import trio.testing

from svc import heap


def test_the_trimmer_is_glibc_s_malloc_trim_on_linux() -> None:
    trim = heap.heap_trimmer()
    if sys.platform.startswith("linux"):
        assert trim is not None
        assert trim() in (0, 1)  # 1: memory was released
    else:
        assert trim is None


async def test_the_heap_is_trimmed_every_interval_until_cancelled(
    mock_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    trimmed = threading.Semaphore(0)
    monkeypatch.setattr(heap, "heap_trimmer", lambda: lambda: trimmed.release() or 0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(heap.trim_heap_periodically, 60)
        for _ in range(2):
            await trio.testing.wait_all_tasks_blocked()
            assert not trimmed.acquire(blocking=False)  # not before the interval
            mock_clock.jump(60)
            # The trim runs on a worker thread: wait for it there.
            assert await trio.to_thread.run_sync(trimmed.acquire, True, 10)
        nursery.cancel_scope.cancel()


async def test_an_interval_of_zero_never_trims(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "heap_trimmer", lambda: pytest.fail("not asked for"))
    with trio.fail_after(1):
        await heap.trim_heap_periodically(0)
