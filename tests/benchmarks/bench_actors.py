"""Actor kernel benchmark (a plain script, not collected by pytest).

    /tmp/venv/bin/python tests/benchmarks/bench_actors.py

Prints, measured in the same run so machine noise cancels out of the ratios:
  * tell throughput vs a raw trio memory channel (ratio; target >= 0.5)
  * ask round trips vs raw request + reply memory channels (ratio; target >= 0.5)
  * time to spawn 10,000 idle actors, until all are parked on their mailboxes (best of 3;
    target <= 1 s)
  * RSS per idle actor, from /proc/self/status VmRSS after gc.collect(), first (cold) trial
    (target <= 10 KB)
Exit status is 1 if a target is missed.
"""

from __future__ import annotations

import gc
import math
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import trio
import trio.testing

from actors import Actor, open_actor_system

TELLS = 200_000
ASKS = 50_000
IDLE = 10_000
ROUNDS = 5


class Counter(Actor):
    def __init__(self, total: int) -> None:
        self.total = total
        self.seen = 0
        self.done = trio.Event()

    async def receive(self, message: object) -> object:
        self.seen += 1
        if self.seen == self.total:
            self.done.set()
        return None


class Echo(Actor):
    async def receive(self, message: object) -> object:
        return message


class Idle(Actor):
    async def receive(self, message: object) -> object:
        return None


async def raw_tell(n: int) -> float:
    send, receive = trio.open_memory_channel[object](n)
    done = trio.Event()

    async def consumer() -> None:
        seen = 0
        while True:
            await receive.receive()
            seen += 1
            if seen == n:
                done.set()
                return

    async with trio.open_nursery() as nursery:
        nursery.start_soon(consumer)
        await trio.testing.wait_all_tasks_blocked()
        start = time.perf_counter()
        for i in range(n):
            send.send_nowait(i)
        await done.wait()
        elapsed = time.perf_counter() - start
    return n / elapsed


async def actor_tell(n: int) -> float:
    async with open_actor_system() as system:
        counter = Counter(n)
        ref = await system.spawn("counter", counter, mailbox_size=n)
        await trio.testing.wait_all_tasks_blocked()
        tell = ref.tell
        start = time.perf_counter()
        for i in range(n):
            tell(i)
        await counter.done.wait()
        elapsed = time.perf_counter() - start
    return n / elapsed


async def raw_ask(n: int) -> float:
    request_send, request_receive = trio.open_memory_channel[object](1024)
    reply_send, reply_receive = trio.open_memory_channel[object](1)

    async def server() -> None:
        async for message in request_receive:
            await reply_send.send(message)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        await trio.testing.wait_all_tasks_blocked()
        start = time.perf_counter()
        for i in range(n):
            await request_send.send(i)
            await reply_receive.receive()
        elapsed = time.perf_counter() - start
        nursery.cancel_scope.cancel()
    return n / elapsed


async def actor_ask(n: int) -> float:
    async with open_actor_system() as system:
        ref = await system.spawn("echo", Echo())
        await trio.testing.wait_all_tasks_blocked()
        ask = ref.ask
        start = time.perf_counter()
        for i in range(n):
            await ask(i)
        elapsed = time.perf_counter() - start
    return n / elapsed


def rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


async def idle_actors(n: int) -> tuple[float, float]:
    async with open_actor_system() as system:
        # Warm up code paths and allocator pools so they are not billed to the actors.
        warm = [await system.spawn(f"warm/{i}", Idle()) for i in range(200)]
        for ref in warm:
            ref.stop()
        await trio.testing.wait_all_tasks_blocked()
        gc.collect()
        before = rss_kb()
        names = [f"idle/{i}" for i in range(n)]
        start = time.perf_counter()
        for name in names:
            await system.spawn(name, Idle())
        # Timed until every actor's task is parked on its mailbox, not just until spawn()
        # returned (an idle actor's spawn does not wait for its task to run).
        await trio.testing.wait_all_tasks_blocked()
        elapsed = time.perf_counter() - start
        gc.collect()
        after = rss_kb()
        assert system.actor_count == n
    return elapsed, (after - before) / n


def best(values: list[float]) -> float:
    return max(values)


async def main() -> int:
    raw_t, act_t, raw_a, act_a = [], [], [], []
    for _ in range(ROUNDS):
        # Interleaved so raw and actor runs see the same machine conditions.
        raw_t.append(await raw_tell(TELLS))
        act_t.append(await actor_tell(TELLS))
        raw_a.append(await raw_ask(ASKS))
        act_a.append(await actor_ask(ASKS))
    tell_ratio = best(act_t) / best(raw_t)
    ask_ratio = best(act_a) / best(raw_a)
    # RSS from the first (cold) trial: later ones reuse memory the allocator kept.
    trials = [await idle_actors(IDLE) for _ in range(3)]
    kb_per_actor = trials[0][1]
    spawn_times = [seconds for seconds, _ in trials]
    spawn_s = min(spawn_times)

    print(f"python {sys.version.split()[0]}, trio {trio.__version__}, best of {ROUNDS} rounds")
    print(
        f"tell: actor {best(act_t):,.0f} msg/s vs raw channel {best(raw_t):,.0f} msg/s"
        f" -> ratio {tell_ratio:.2f} (target >= 0.5)"
    )
    print(
        f"ask:  actor {best(act_a):,.0f} round trips/s vs raw request+reply channels"
        f" {best(raw_a):,.0f}/s -> ratio {ask_ratio:.2f} (target >= 0.5)"
    )
    print(
        f"spawn {IDLE:,} idle actors: {spawn_s:.3f} s, best of"
        f" {', '.join(f'{t:.3f}' for t in spawn_times)} (target <= 1 s)"
    )
    print(f"RSS per idle actor: {kb_per_actor:.2f} KB (target <= 10 KB)")
    ok = tell_ratio >= 0.5 and ask_ratio >= 0.5 and spawn_s <= 1.0 and kb_per_actor <= 10
    print("all targets met" if ok else "TARGET MISSED")
    return 0 if ok and not math.isnan(tell_ratio) else 1


if __name__ == "__main__":
    sys.exit(trio.run(main))
