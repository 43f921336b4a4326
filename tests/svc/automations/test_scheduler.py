"""The scheduler under a MockClock: on time, never twice, misfire policies, restarts.

The engine runs with a :class:`svc.clock.TrioClock`, so its wall time moves
only when the test moves trio's clock. Runs use a test entrypoint that records
the fire and completes without a model (the whole run path is real: run
records, the pool, the per-routine lock, events).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

import svc
from svc.automations.routines import EntrypointResult, RunContext
from svc.clock import TrioClock
from svc.component import Component, default_components
from svc.events import EventFilter, EventStream

EPOCH_MS = 1_767_225_600_000
RECORD = "test.record"


class Recorder:
    """The test entrypoint: remembers each fire as (routine_id, scheduled_at_ms)."""

    def __init__(self) -> None:
        self.fires: list[tuple[str, int | None]] = []

    async def __call__(self, ctx: RunContext) -> EntrypointResult:
        self.fires.append((ctx.run.routine_id, ctx.run.scheduled_at_ms))
        return EntrypointResult("completed", text="recorded")


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings]) -> svc.Settings:
    return make_settings(automation_max_concurrent_runs=2000, automation_misfire_grace_ms=60_000)


class RecorderEntrypoint(Component):
    """Registers the recording entrypoint during set-up, before any run can start."""

    name = "test-entrypoints"

    def __init__(self, handlers: dict[str, Any]) -> None:
        self.handlers = handlers

    async def setup(self, engine: svc.Engine) -> None:
        for name, handler in self.handlers.items():
            engine.automations.routines.register_entrypoint(name, handler)


@asynccontextmanager
async def open_scheduled_engine(
    settings: svc.Settings, recorder: Recorder, wall_ms: int, **handlers: Any
) -> AsyncIterator[svc.Engine]:
    clock = TrioClock(epoch_ms=wall_ms, anchor=trio.current_time())
    components = [*default_components(), RecorderEntrypoint({RECORD: recorder, **handlers})]
    async with svc.open_engine(settings, clock=clock, components=components) as engine:
        yield engine


async def create_routines(
    engine: svc.Engine, count: int, *, seconds: int = 1, misfire: Any = None, prefix: str = "r"
) -> list[str]:
    ids = []
    for index in range(count):
        body: dict[str, Any] = {
            "routine_id": f"{prefix}{index:04d}",
            "name": f"routine {index}",
            "schedule": {"interval_seconds": {"seconds": seconds}},
            "entrypoint": RECORD,
        }
        if misfire is not None:
            body["misfire_policy"] = misfire
        ids.append((await engine.automations.routines.create(body)).routine_id)
    return ids


@asynccontextmanager
async def real_time_limit(seconds: float) -> AsyncIterator[None]:
    """Fail the block after ``seconds`` of real time (a MockClock never fires trio deadlines)."""
    done = threading.Event()
    expired = False

    async def watchdog(scope: trio.CancelScope) -> None:
        nonlocal expired
        if await trio.to_thread.run_sync(done.wait, seconds):
            return
        expired = True
        scope.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watchdog, nursery.cancel_scope)
        try:
            yield
        finally:
            done.set()  # ends the watchdog's thread at once
    if expired:
        raise AssertionError(f"still waiting after {seconds} s of real time")


async def completions(engine: svc.Engine, count: int, after_seq: int) -> int:
    """Wait for ``count`` run.completed events after ``after_seq``; returns the last seq seen."""
    seen = 0
    last = after_seq
    async with real_time_limit(120):
        with EventStream(
            engine.events,
            EventFilter(topic="automations", types={"run.completed"}),
            after_seq=after_seq,
        ) as stream:
            while seen < count:
                for event in await stream.receive():
                    seen += 1
                    last = event.seq
    return last


async def caught_up(engine: svc.Engine) -> None:
    """The scheduler has handled everything due at the engine's current wall time."""
    async with real_time_limit(60):
        await engine.automations.scheduler.caught_up(engine.clock.now_ms())
    await engine.events.flush()


@pytest.mark.slow
async def test_a_thousand_routines_fire_every_second_for_a_minute_across_a_restart(
    settings: svc.Settings,
    mock_clock: trio.testing.MockClock,
) -> None:
    recorder = Recorder()
    wall = EPOCH_MS
    seq = 0
    async with open_scheduled_engine(settings, recorder, wall) as engine:
        ids = await create_routines(engine, 1000)
        seq = engine.events.last_seq
        for _ in range(30):
            mock_clock.jump(1.0)
            seq = await completions(engine, 1000, seq)
        wall = engine.clock.now_ms()
        assert engine.automations.scheduler.waiting == set()
    assert wall == EPOCH_MS + 30_000

    # A restart in the middle: the fire times come back from the store.
    async with open_scheduled_engine(settings, recorder, wall) as engine:
        for _ in range(30):
            mock_clock.jump(1.0)
            seq = await completions(engine, 1000, seq)
        await caught_up(engine)
        assert engine.clock.now_ms() == EPOCH_MS + 60_000
        stored = await engine.automations.routines.list_runs(routine_id="r0500", limit=1000)

    per_routine = Counter(routine_id for routine_id, _ in recorder.fires)
    assert set(per_routine) == set(ids)
    assert set(per_routine.values()) == {60}, "every routine fired exactly once per second"
    slots = {(routine_id, slot) for routine_id, slot in recorder.fires}
    assert len(slots) == len(recorder.fires) == 60_000, "no slot fired twice"
    expected = {EPOCH_MS + 1000 * k for k in range(1, 61)}
    assert {slot for _, slot in recorder.fires} == expected
    assert len(stored) == 60 and {r.status for r in stored} == {"completed"}
    assert {r.scheduled_at_ms for r in stored} == expected


@pytest.mark.parametrize(
    ("policy", "expected_slots"),
    [
        ({"type": "skip"}, []),
        ("run_once", [11]),
        ({"type": "run_once"}, [11]),
        ({"type": "catch_up", "max_runs": 3}, [9, 10, 11]),
        ({"type": "catch_up", "max_runs": 50}, list(range(2, 12))),
    ],
)
async def test_misfire_policies_after_an_outage_of_ten_intervals(
    settings: svc.Settings,
    mock_clock: trio.testing.MockClock,
    policy: Any,
    expected_slots: list[int],
) -> None:
    recorder = Recorder()
    async with open_scheduled_engine(settings, recorder, EPOCH_MS) as engine:
        await create_routines(engine, 1, misfire=policy)
        seq = engine.events.last_seq
        mock_clock.jump(1.0)
        seq = await completions(engine, 1, seq)
    assert recorder.fires == [("r0000", EPOCH_MS + 1000)]

    # Down for ten intervals (the slots at +2 s ... +11 s pass while it is stopped).
    # Event seqs carry on across restarts, so `before` marks "after the first fire".
    before = seq
    async with open_scheduled_engine(settings, recorder, EPOCH_MS + 11_500) as engine:
        if expected_slots:
            seq = await completions(engine, len(expected_slots), before)
        await caught_up(engine)
        after_outage = [slot for _, slot in recorder.fires[1:]]
        assert after_outage == [EPOCH_MS + 1000 * s for s in expected_slots]
        routine = engine.automations.routines.routine_wire(
            engine.automations.routines.require("r0000")
        )
        assert routine["next_fire_at_ms"] == EPOCH_MS + 12_000
        runs = await engine.automations.routines.list_runs(routine_id="r0000")
        assert all(r.trigger_type == "scheduled" for r in runs) and len(runs) == 1 + len(
            expected_slots
        )
        created = await engine.events.replay(
            EventFilter(topic="automations", types={"run.started"}), after_seq=before
        )
        assert [e.properties["scheduledAtMs"] for e in created] == [
            EPOCH_MS + 1000 * s for s in expected_slots
        ]
        assert all(e.properties["reason"].startswith("misfire: 10 fires were due") for e in created)

        # Back on schedule: the next slot fires once, on time.
        seq = engine.events.last_seq
        mock_clock.jump(0.5)
        await completions(engine, 1, seq)
        assert recorder.fires[-1] == ("r0000", EPOCH_MS + 12_000)
        assert len(recorder.fires) == 2 + len(expected_slots)


async def test_a_busy_routine_is_not_fired_again_until_its_run_settles(
    settings: svc.Settings,
    mock_clock: trio.testing.MockClock,
) -> None:
    release = trio.Event()
    started = trio.Event()
    fires: list[int | None] = []

    async def slow(ctx: RunContext) -> EntrypointResult:
        fires.append(ctx.run.scheduled_at_ms)
        started.set()
        await release.wait()
        return EntrypointResult("completed")

    async with open_scheduled_engine(
        settings, Recorder(), EPOCH_MS, **{"test.slow": slow}
    ) as engine:
        await engine.automations.routines.create(
            {
                "routine_id": "slow",
                "name": "slow",
                "schedule": {"interval_seconds": {"seconds": 1}},
                "entrypoint": "test.slow",
                "misfire_policy": {"type": "catch_up", "max_runs": 5},
            }
        )
        seq = engine.events.last_seq
        mock_clock.jump(1.0)
        async with real_time_limit(60):
            await started.wait()
        for _ in range(3):  # three more slots pass while the first run is still running
            mock_clock.jump(1.0)
            await caught_up(engine)
        assert fires == [EPOCH_MS + 1000]
        assert engine.automations.scheduler.waiting == {("routine", "slow")}
        assert len(await engine.automations.routines.list_runs(routine_id="slow")) == 1
        release.set()
        # Settled: the missed slots are caught up (by its policy), one run at a time.
        await completions(engine, 4, seq)
        assert fires == [EPOCH_MS + 1000 * k for k in (1, 2, 3, 4)]


async def test_cron_schedules_fire_in_their_time_zone(
    settings: svc.Settings, mock_clock: trio.testing.MockClock
) -> None:
    recorder = Recorder()
    # 2026-01-01T00:00:00Z is 01:00 in Berlin; "0 2 * * *" Berlin is 01:00Z.
    async with open_scheduled_engine(settings, recorder, EPOCH_MS) as engine:
        routine = await engine.automations.routines.create(
            {
                "routine_id": "berlin",
                "name": "berlin",
                "schedule": {"cron": {"expression": "0 2 * * *"}},
                "timezone": "Europe/Berlin",
                "entrypoint": RECORD,
            }
        )
        wire = engine.automations.routines.routine_wire(routine)
        assert wire["next_fire_at_ms"] == EPOCH_MS + 3_600_000
        seq = engine.events.last_seq
        mock_clock.jump(3600.0)
        await completions(engine, 1, seq)
        assert recorder.fires == [("berlin", EPOCH_MS + 3_600_000)]
        wire = engine.automations.routines.routine_wire(routine)
        assert wire["next_fire_at_ms"] == EPOCH_MS + 3_600_000 + 86_400_000


async def test_paused_routines_do_not_fire_and_resume_from_now(
    settings: svc.Settings, mock_clock: trio.testing.MockClock
) -> None:
    recorder = Recorder()
    async with open_scheduled_engine(settings, recorder, EPOCH_MS) as engine:
        await create_routines(engine, 1, seconds=10)
        await engine.automations.routines.patch("r0000", {"status": "paused"})
        mock_clock.jump(30.0)
        await caught_up(engine)
        assert recorder.fires == []
        resumed = await engine.automations.routines.patch("r0000", {"status": "active"})
        assert (
            engine.automations.routines.routine_wire(resumed)["next_fire_at_ms"]
            == EPOCH_MS + 40_000
        )
        seq = engine.events.last_seq
        mock_clock.jump(10.0)
        await completions(engine, 1, seq)
        assert recorder.fires == [("r0000", EPOCH_MS + 40_000)]


async def test_scheduled_automations_v2_create_runs(
    settings: svc.Settings, mock_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    async with open_scheduled_engine(settings, Recorder(), EPOCH_MS) as engine:
        automation = await engine.automations.create_v2(
            {
                "name": "ticker",
                "status": "active",
                "schedule": {
                    "type": "interval",
                    "interval_seconds": 5,
                    "timezone": "UTC",
                    "misfire_policy": "run_once",
                },
                "agents": [
                    {
                        "agent_id": "a",
                        "display_name": "A",
                        "tool_policy": {"allowlist": ["read"]},
                        "mcp_policy": {"allowed_servers": []},
                    }
                ],
                "flow": {"nodes": [{"node_id": "n", "agent_id": "a", "objective": "tick"}]},
            }
        )
        assert automation.next_fire_at_ms == EPOCH_MS + 5000
        seq = engine.events.last_seq
        mock_clock.jump(5.0)
        async with real_time_limit(60):
            with EventStream(
                engine.events, EventFilter(topic="automations/v2"), after_seq=seq
            ) as stream:
                while not [e for e in await stream.receive() if e.type == "run.completed"]:
                    pass
        runs = await engine.automations.v2.list_runs(automation_id=automation.automation_id)
        assert (
            len(runs) == 1 and runs[0].trigger_type == "scheduled" and runs[0].status == "completed"
        )
        assert runs[0].context == {"scheduled_at_ms": EPOCH_MS + 5000}
        assert (
            await engine.automations.get_v2(automation.automation_id)
        ).next_fire_at_ms == EPOCH_MS + 10_000
