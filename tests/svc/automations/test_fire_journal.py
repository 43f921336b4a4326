"""The fire journal: a tick's decisions are durable before any run record exists.

A tick commits its decisions to ``automations_fire_journal``; the materializer
(a supervised child of the automations component) turns each row into runs
afterwards. These tests run the engine with a component variant whose
materializer child is missing, which is what a process that stops right after
the tick's commit leaves behind: journaled fires and no runs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
import trio.testing

import svc
from svc.automations import AutomationsComponent
from svc.automations.component import MATERIALIZER
from svc.clock import TrioClock
from svc.component import default_components
from svc.events import EventFilter
from svc.store import loads

from .test_scheduler import (
    EPOCH_MS,
    RECORD,
    Recorder,
    RecorderEntrypoint,
    caught_up,
    completions,
    create_routines,
    real_time_limit,
)


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings]) -> svc.Settings:
    return make_settings(automation_max_concurrent_runs=100, automation_misfire_grace_ms=60_000)


class WithoutMaterializer(AutomationsComponent):
    """The automations component minus the materializer: journaled fires stay journaled."""

    def children(self, engine: svc.Engine) -> list[Any]:
        return [child for child in super().children(engine) if child.id != MATERIALIZER]


@asynccontextmanager
async def open_engine_at(
    settings: svc.Settings, recorder: Recorder, wall_ms: int, *, materializer: bool = True
) -> AsyncIterator[svc.Engine]:
    clock = TrioClock(epoch_ms=wall_ms, anchor=trio.current_time())
    components = [
        WithoutMaterializer() if isinstance(c, AutomationsComponent) and not materializer else c
        for c in default_components()
    ]
    components.append(RecorderEntrypoint({RECORD: recorder}))
    async with svc.open_engine(settings, clock=clock, components=components) as engine:
        yield engine


async def journal_rows(engine: svc.Engine) -> list[tuple[Any, ...]]:
    return await engine.store.read(
        lambda conn: list(
            conn.execute(
                "SELECT kind, fired_at_ms, decisions FROM automations_fire_journal ORDER BY seq"
            )
        )
    )


async def stored_fire_times(engine: svc.Engine, routine_id: str) -> tuple[int | None, int | None]:
    return await engine.store.read(
        lambda conn: next(
            conn.execute(
                "SELECT next_fire_at_ms, last_fired_at_ms FROM automations_routine_fire_times "
                "WHERE routine_id = ?",
                (routine_id,),
            )
        )
    )


async def test_fires_journaled_before_a_stop_become_runs_exactly_once_at_the_next_start(
    settings: svc.Settings,
    mock_clock: trio.testing.MockClock,
) -> None:
    recorder = Recorder()
    async with open_engine_at(settings, recorder, EPOCH_MS, materializer=False) as engine:
        ids = await create_routines(engine, 3)
        mock_clock.jump(1.0)
        await caught_up(engine)
        # The tick's decision is committed, as one row; no run record exists yet.
        rows = await journal_rows(engine)
        assert len(rows) == 1
        kind, fired_at, decisions = rows[0]
        assert (kind, fired_at) == ("routine", EPOCH_MS + 1000)
        assert loads(decisions) == [[i, [EPOCH_MS + 1000], EPOCH_MS + 2000, None] for i in ids]
        routines = engine.automations.routines
        for routine_id in ids:
            assert await routines.list_runs(routine_id=routine_id) == []
            assert routines.busy(routine_id)
            # Memory reflects the journal; the store's fire times move with the runs.
            assert routines.fire_times(routine_id) == (EPOCH_MS + 2000, EPOCH_MS + 1000)
            assert await stored_fire_times(engine, routine_id) == (EPOCH_MS + 1000, None)
        before = engine.events.last_seq
    assert recorder.fires == []

    # The next start materializes the row before the scheduler loads its heap.
    async with open_engine_at(settings, recorder, EPOCH_MS + 1500) as engine:
        assert await journal_rows(engine) == []
        seq = await completions(engine, 3, before)
        assert sorted(recorder.fires) == [(i, EPOCH_MS + 1000) for i in ids]
        announced = await engine.events.replay(
            EventFilter(topic="automations", types={"run.started"}), after_seq=before
        )
        assert sorted(
            (e.properties["routineID"], e.properties["scheduledAtMs"]) for e in announced
        ) == [(i, EPOCH_MS + 1000) for i in ids]
        for routine_id in ids:
            assert await stored_fire_times(engine, routine_id) == (EPOCH_MS + 2000, EPOCH_MS + 1000)

        # The following slot fires once, on time; nothing is repeated.
        mock_clock.jump(0.5)
        await completions(engine, 3, seq)
        await caught_up(engine)
        for routine_id in ids:
            runs = await engine.automations.routines.list_runs(routine_id=routine_id)
            assert sorted(r.scheduled_at_ms for r in runs) == [EPOCH_MS + 1000, EPOCH_MS + 2000]
    assert sorted(recorder.fires) == sorted(
        [(i, EPOCH_MS + 1000) for i in ids] + [(i, EPOCH_MS + 2000) for i in ids]
    )


async def test_a_routine_with_a_journaled_fire_not_yet_materialized_is_not_fired_again(
    settings: svc.Settings,
    mock_clock: trio.testing.MockClock,
) -> None:
    recorder = Recorder()
    async with open_engine_at(settings, recorder, EPOCH_MS, materializer=False) as engine:
        await create_routines(engine, 1, misfire={"type": "catch_up", "max_runs": 5})
        seq = engine.events.last_seq
        mock_clock.jump(1.0)
        await caught_up(engine)
        for _ in range(3):  # three more slots pass while the first fire is journaled only
            mock_clock.jump(1.0)
            await caught_up(engine)
        assert len(await journal_rows(engine)) == 1
        assert engine.automations.scheduler.waiting == {("routine", "r0000")}
        assert await engine.automations.routines.list_runs(routine_id="r0000") == []

        # Materialized: the journaled fire runs, then the slots missed meanwhile
        # are caught up by the routine's policy.
        async with trio.open_nursery() as nursery:
            await nursery.start(engine.automations.journal.run)
            await completions(engine, 4, seq)
            async with real_time_limit(60):
                await engine.automations.journal.drained()
            nursery.cancel_scope.cancel()
        assert await journal_rows(engine) == []
    assert recorder.fires == [("r0000", EPOCH_MS + 1000 * k) for k in (1, 2, 3, 4)]


async def test_a_scheduled_automation_v2_fire_journaled_before_a_stop_runs_once_after_the_restart(
    settings: svc.Settings,
    mock_clock: trio.testing.MockClock,
) -> None:
    spec = {
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
    async with open_engine_at(settings, Recorder(), EPOCH_MS, materializer=False) as engine:
        automation = await engine.automations.create_v2(spec)
        mock_clock.jump(5.0)
        await caught_up(engine)
        assert [row[0] for row in await journal_rows(engine)] == ["v2"]
        assert await engine.automations.v2.list_runs(automation_id=automation.automation_id) == []
        assert engine.automations.v2.busy(automation.automation_id)
        assert (
            await engine.automations.get_v2(automation.automation_id)
        ).next_fire_at_ms == EPOCH_MS + 10_000

    async with open_engine_at(settings, Recorder(), EPOCH_MS + 6000) as engine:
        assert await journal_rows(engine) == []
        runs = await engine.automations.v2.list_runs(automation_id=automation.automation_id)
        assert len(runs) == 1 and runs[0].context == {"scheduled_at_ms": EPOCH_MS + 5000}
        assert (
            await engine.automations.get_v2(automation.automation_id)
        ).next_fire_at_ms == EPOCH_MS + 10_000
