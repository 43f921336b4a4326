"""Workflow hooks: what active hooks cost the event log, and how fast matching events become runs.

    /tmp/venv/bin/python tests/benchmarks/bench_workflow_hooks.py

1. Overhead: a burst of 20,000 events (like streamed deltas) published and
   committed with no hook defined (baseline, the dispatcher holds no
   subscription) and with 500 hooks bound to other events (the dispatcher
   reads the log and tests every event against its index). The two engines
   alternate twice, 3 bursts each; best time per configuration; prints the
   ratio to the baseline.
2. Dispatch: 1,000 events that one hook matches; prints the time until all
   1,000 hook runs (one ``resource:patch`` action each) have completed, as runs/s.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import trio

import svc
from svc.events import EventFilter, EventStream
from svc.workflows import workflows_of

BURST = 20_000
UNRELATED_HOOKS = 500
DISPATCHED = 1_000


def settings_for(tmp: pathlib.Path, name: str) -> svc.Settings:
    workspace = tmp / name
    workspace.mkdir()
    return svc.Settings.load(
        {
            "state_dir": tmp / f"state-{name}",
            "workspace": str(workspace),
            "port": 0,
            "global_config": tmp / "none.json",
        },
        environ={},
    )


def write_hooks(workspace: pathlib.Path, events: list[str]) -> None:
    lines = ["workflow:", "  id: bench", "  steps: []", "  hooks:"]
    for event in events:
        lines += [
            f"    {event}:",
            "      - action: resource:patch:bench",
            "        with: {seen: true}",
        ]
    path = workspace / ".svc" / "workflows" / "bench.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")


async def burst(engine: svc.Engine) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for i in range(BURST):
            engine.events.publish(
                "bench.delta", {"sessionID": "s", "runID": "r", "i": i, "text": "token "}
            )
        await engine.events.flush()
        best = min(best, time.perf_counter() - started)
    return best


async def overhead(tmp: pathlib.Path) -> tuple[float, float]:
    """Best burst time without hooks and with them.

    The engines alternate so warm-up favours neither."""
    hooked_settings = settings_for(tmp, "hooked")
    write_hooks(
        hooked_settings.resolved_workspace, [f"bench.other.{i}" for i in range(UNRELATED_HOOKS)]
    )
    plain_settings = settings_for(tmp, "plain")
    baseline = hooked = float("inf")
    for _ in range(2):
        async with svc.open_engine(plain_settings) as engine:
            baseline = min(baseline, await burst(engine))
        async with svc.open_engine(hooked_settings) as engine:
            await engine.events.wait_for_subscribers(lambda n: n >= 1)  # the dispatcher is reading
            hooked = min(hooked, await burst(engine))
    return baseline, hooked


async def dispatch(tmp: pathlib.Path) -> float:
    settings = settings_for(tmp, "dispatch")
    write_hooks(settings.resolved_workspace, ["bench.ping"])
    async with svc.open_engine(settings) as engine:
        await engine.events.wait_for_subscribers(lambda n: n >= 1)
        done = 0
        with EventStream(engine.events, EventFilter(topic="workflows")) as stream:
            started = time.perf_counter()
            for i in range(DISPATCHED):
                engine.events.publish("bench.ping", {"i": i})
            while done < DISPATCHED:
                done += sum(1 for e in await stream.receive() if e.type == "workflow.run.completed")
            elapsed = time.perf_counter() - started
        await workflows_of(engine).runner.wait_idle()
    return elapsed


async def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = pathlib.Path(name)
        baseline, hooked = await overhead(tmp)
        print(
            f"{BURST:,} events committed: {baseline * 1000:.0f} ms without hooks (baseline), "
            f"{hooked * 1000:.0f} ms with {UNRELATED_HOOKS} unrelated hooks active "
            f"({hooked / baseline:.2f}x)"
        )
        elapsed = await dispatch(tmp)
        print(
            f"{DISPATCHED:,} matching events -> {DISPATCHED:,} completed hook runs "
            f"in {elapsed:.2f} s "
            f"({DISPATCHED / elapsed:,.0f} runs/s)"
        )


if __name__ == "__main__":
    trio.run(main)
