from __future__ import annotations

import trio
import trio.testing

from svc.sessions.deltas import DeltaCoalescer


async def test_slow_deltas_are_published_at_once_and_bursts_are_merged(
    autojump_clock: trio.testing.MockClock,
) -> None:
    emitted: list[tuple[float, str]] = []
    coalescer = DeltaCoalescer(
        lambda text: emitted.append((trio.current_time(), text)), window=0.015
    )
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        await nursery.start(coalescer.run)
        coalescer.add("first ")  # nothing published recently: out at once
        for word in ("a ", "b ", "c "):  # a burst inside the window: merged
            coalescer.add(word)
        await trio.sleep(1.0)  # the window closes while idle: the burst goes out
        coalescer.add("later")  # slow again: at once
        nursery.cancel_scope.cancel()
    coalescer.flush()
    assert [text for _, text in emitted] == ["first ", "a b c ", "later"]
    assert emitted[1][0] - start == 0.015
    assert "".join(text for _, text in emitted) == "first a b c later"


async def test_a_long_burst_is_cut_at_max_chars() -> None:
    emitted: list[str] = []
    coalescer = DeltaCoalescer(emitted.append, window=60.0, max_chars=10)
    for _ in range(25):
        coalescer.add("x")
    coalescer.flush()
    assert emitted == ["x", "x" * 10, "x" * 10, "xxxx"]
