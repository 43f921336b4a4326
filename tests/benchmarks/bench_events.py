"""Event log: durable appends in bursts, and 100 SSE subscribers losing nothing.

    /tmp/venv/bin/python tests/benchmarks/bench_events.py

1. Appends: bursts of 10,000 events published back to back, each burst flushed
   (committed to SQLite), best of 5. Target >= 50,000 events/s.
2. Fan-out: an engine serving HTTP, 100 SSE clients on ``/event``; one burst of
   10,000 events is published; every client must receive every event (by seq).
   Prints the time until the last client has the last event. Baseline measured
   in the same run: the same burst to a single SSE client.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx
import trio

import svc
from svc.clock import SystemClock
from svc.events import open_event_log
from svc.store import open_sqlite_store

BURST = 10_000
SUBSCRIBERS = 100


async def appends(tmp: pathlib.Path) -> float:
    best = 0.0
    async with open_sqlite_store(tmp / "append.db") as db, open_event_log(db, SystemClock()) as log:
        for _ in range(5):
            started = time.perf_counter()
            for i in range(BURST):
                log.publish(
                    "bench.event",
                    {"sessionID": "s1", "runID": "r1", "i": i, "text": "some delta text"},
                )
            await log.flush()
            best = max(best, BURST / (time.perf_counter() - started))
    return best


async def sse_fanout(tmp: pathlib.Path, subscribers: int) -> tuple[float, list[int]]:
    settings = svc.Settings.load(
        {
            "state_dir": tmp / f"state-{subscribers}",
            "workspace": str(tmp),
            "port": 0,
            "global_config": tmp / "none.json",
        },
        environ={},
    )
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(
            base_url=engine.url,
            trust_env=False,
            timeout=120,
            limits=httpx.Limits(max_connections=subscribers + 10),
        ) as client,
    ):
        received = [0] * subscribers
        all_done = trio.Event()
        finished = 0
        first_seq = engine.events.last_seq + 1
        last_seq = first_seq + BURST - 1

        async def subscriber(index: int) -> None:
            nonlocal finished
            async with client.stream("GET", "/event", params={"sessionID": "bench"}) as response:
                buffer = ""
                with trio.CancelScope() as scope:
                    async for text in response.aiter_text():
                        buffer += text
                        *frames, buffer = buffer.split("\n\n")
                        for frame in frames:
                            if frame.startswith("id: "):
                                seq = int(frame[4 : frame.index("\n")])
                                if first_seq <= seq <= last_seq:
                                    received[index] += 1
                                if seq == last_seq:
                                    finished += 1
                                    if finished == subscribers:
                                        all_done.set()
                                    scope.cancel()

        async with trio.open_nursery() as nursery:
            for index in range(subscribers):
                nursery.start_soon(subscriber, index)
            await engine.events.wait_for_subscribers(lambda n: n >= subscribers)
            started = time.perf_counter()
            for i in range(BURST):
                engine.events.publish("bench.event", {"sessionID": "bench", "i": i})
            await all_done.wait()
            elapsed = time.perf_counter() - started
    return elapsed, received


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = pathlib.Path(tmp_name)
        rate = await appends(tmp)
        print(f"durable appends: {rate:,.0f} events/s in bursts of {BURST:,} (target >= 50,000)")
        single, _ = await sse_fanout(tmp, 1)
        elapsed, received = await sse_fanout(tmp, SUBSCRIBERS)
        complete = sum(1 for r in received if r == BURST)
        print(
            f"fan-out of {BURST:,} events to {SUBSCRIBERS} SSE clients: {elapsed:.2f} s; "
            f"{complete}/{SUBSCRIBERS} clients received all {BURST:,} "
            f"(none lost: {complete == SUBSCRIBERS})"
        )
        print(
            f"baseline, the same burst to 1 SSE client: {single:.2f} s "
            f"({SUBSCRIBERS} clients cost {elapsed / single:.1f}x one client, "
            f"{elapsed / single / SUBSCRIBERS:.2f}x per client)"
        )


if __name__ == "__main__":
    trio.run(main)
