"""Queued routine runs are claimed by the replicas: each run once, one run of a routine at a time.

Two engines on one PostgreSQL database, each running at most two routine runs
at once: the runs of three routines queued through A are spread over A and B
(``FOR UPDATE SKIP LOCKED`` claims) and each executes once, never two runs of
one routine at the same moment on either replica. A run left by a stopped
replica is finished by the other; a run paused through one replica stops on
the one running it. The claiming statement is also checked on both backends.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
import trio

import svc
from svc.automations.routines import EntrypointResult, RunContext
from svc.automations.routines.claims import RoutineClaims
from svc.automations.routines.claims_repository import RoutineClaimsRepository
from svc.automations.routines.records import RoutineRun
from svc.automations.routines.repository import RoutineRepository
from svc.component import Component, default_components
from svc.events import EventFilter, EventStream
from svc.store import Store

ENTRYPOINT = "test.lane"
ROUTINES = 3
RUNS_EACH = 4
PER_REPLICA = 2
LEASE_MS = 1500


class Lanes:
    """The test entrypoint: records who ran what, and whether a routine ever ran twice at once."""

    def __init__(self) -> None:
        self.active: Counter[str] = Counter()
        self.overlap = False
        self.executions: Counter[str] = Counter()
        self.replica: dict[str, list[str]] = {}
        self.release = trio.Event()
        self.blocked: set[str] = set()
        """Replicas whose runs never end by themselves (stopped or paused by the test)."""
        self.started = 0
        self.stopped: dict[str, trio.Event] = {}
        self._progress = trio.Event()

    def handler(self, name: str) -> Callable[[RunContext], Any]:
        async def run(ctx: RunContext) -> EntrypointResult:
            routine_id, run_id = ctx.run.routine_id, ctx.run.run_id
            self.overlap |= self.active[routine_id] > 0
            self.active[routine_id] += 1
            self.executions[run_id] += 1
            self.replica.setdefault(run_id, []).append(name)
            self.started += 1
            self._progress.set()
            self._progress = trio.Event()
            try:
                if name in self.blocked:
                    await trio.sleep_forever()
                await self.release.wait()
            finally:
                self.active[routine_id] -= 1
                self.stopped.setdefault(run_id, trio.Event()).set()
            return EntrypointResult("completed", text="done")

        return run

    async def wait_started(self, count: int) -> None:
        while self.started < count:
            await self._progress.wait()


class LaneEntrypoint(Component):
    name = "test-entrypoints"

    def __init__(self, handler: Callable[[RunContext], Any]) -> None:
        self.handler = handler

    async def setup(self, engine: svc.Engine) -> None:
        engine.automations.routines.register_entrypoint(ENTRYPOINT, self.handler)


def _claims(engine: svc.Engine) -> RoutineClaims:
    claims = engine.automations.routines.claims
    assert claims is not None  # a shared store: routine runs are claimed
    return claims


@asynccontextmanager
async def _replicas(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path, lanes: Lanes
) -> AsyncIterator[tuple[dict[str, svc.Engine], Callable[[str], Any], Callable[[str], Any]]]:
    engines: dict[str, svc.Engine] = {}
    stops: dict[str, trio.Event] = {}
    gone: dict[str, trio.Event] = {}

    async def replica(name: str, *, task_status: trio.TaskStatus[None]) -> None:
        settings = make_settings(
            store_url=pg_url,
            state_dir=tmp_path / name,
            automation_max_concurrent_runs=PER_REPLICA,
            automation_scheduler_enabled=False,
            cluster_lease_ms=LEASE_MS,
        )
        components = [*default_components(), LaneEntrypoint(lanes.handler(name))]
        stops[name], gone[name] = trio.Event(), trio.Event()
        async with svc.open_engine(settings, components=components) as engine:
            engines[name] = engine
            task_status.started()
            await stops[name].wait()
        gone[name].set()

    async with trio.open_nursery() as nursery:

        async def start(name: str) -> None:
            await nursery.start(replica, name)

        async def stop(name: str) -> None:
            stops[name].set()
            await gone[name].wait()

        yield engines, start, stop
        lanes.release.set()
        for stop in stops.values():
            stop.set()


async def _routine(engine: svc.Engine, index: int) -> str:
    body = {
        "routine_id": f"lane-{index}",
        "name": f"lane {index}",
        "schedule": {"interval_seconds": {"seconds": 3600}},
        "entrypoint": ENTRYPOINT,
    }
    return (await engine.automations.routines.create(body)).routine_id


async def _ended(engine: svc.Engine, run_ids: set[str]) -> None:
    ended = EventFilter(topic="automations", types=frozenset({"run.completed", "run.failed"}))
    left = set(run_ids)
    with EventStream(engine.events, ended, after_seq=0) as stream:
        while left:
            for event in await stream.receive():
                left.discard(str(event.properties.get("runID")))


async def test_routine_runs_spread_over_two_replicas_once_each_one_per_routine_at_once(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path
) -> None:
    lanes = Lanes()
    async with _replicas(make_settings, pg_url, tmp_path, lanes) as (engines, start, _stop):
        await start("a")
        await start("b")
        a, b = engines["a"], engines["b"]
        with trio.fail_after(60):  # safety net only
            routine_ids = [await _routine(a, i) for i in range(ROUTINES)]
            runs = [
                run
                for routine_id in routine_ids
                for run in await a.automations.routines.run_now(routine_id, run_count=RUNS_EACH)
            ]
            # Three routines, two slots a replica: A takes two, B the third.
            await lanes.wait_started(ROUTINES)
            assert len(_claims(a).held) + len(_claims(b).held) == ROUTINES
            assert _claims(a).held and _claims(b).held
            lanes.release.set()
            await _ended(a, {run.run_id for run in runs})
            final = [await b.automations.routines.get_run(run.run_id) for run in runs]
        assert {run.status for run in final if run is not None} == {"completed"}
        assert lanes.executions == Counter({run.run_id: 1 for run in runs})  # each once
        assert not lanes.overlap  # never two runs of one routine at once
        assert _claims(a).claimed_total + _claims(b).claimed_total == len(runs)
        assert {name for names in lanes.replica.values() for name in names} == {"a", "b"}


async def test_a_routine_run_left_by_a_stopped_replica_is_settled_by_the_other(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path
) -> None:
    lanes = Lanes()
    lanes.blocked.add("a")  # A's run only ends by A stopping
    async with _replicas(make_settings, pg_url, tmp_path, lanes) as (engines, start, stop):
        await start("a")
        a = engines["a"]
        with trio.fail_after(60):  # safety net only
            routine_id = await _routine(a, 0)
            first, second = await a.automations.routines.run_now(routine_id, run_count=2)
            await lanes.wait_started(1)
            assert _claims(a).held == {first.run_id}  # the second waits in the lane
            await start("b")
            b = engines["b"]
            lanes.release.set()
            await stop("a")  # A stops mid-run: B takes the routine's lane over
            await _ended(b, {first.run_id, second.run_id})
            left = await b.automations.routines.get_run(first.run_id)
            done = await b.automations.routines.get_run(second.run_id)
        # A session run cannot resume mid-turn: B ends it failed (as a restart
        # does), then runs the routine's next run.
        assert left is not None and left.status == "failed"
        assert left.detail is not None and "replica running it stopped" in left.detail
        assert done is not None and done.status == "completed"
        assert lanes.replica == {first.run_id: ["a"], second.run_id: ["b"]}
        assert not lanes.overlap


async def test_a_routine_run_paused_through_one_replica_stops_on_the_one_running_it(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path
) -> None:
    lanes = Lanes()  # never released: the run only ends by its pause
    async with _replicas(make_settings, pg_url, tmp_path, lanes) as (engines, start, _stop):
        await start("a")
        await start("b")
        a, b = engines["a"], engines["b"]
        with trio.fail_after(60):  # safety net only
            routine_id = await _routine(a, 0)
            (run,) = await a.automations.routines.run_now(routine_id)
            await lanes.wait_started(1)
            runner, other = (a, b) if _claims(a).held else (b, a)
            assert _claims(runner).held == {run.run_id}
            paused, _sessions = await other.automations.routines.pause(run.run_id)
            assert paused.status == "paused"
            await lanes.stopped.setdefault(run.run_id, trio.Event()).wait()
            final = await runner.automations.routines.get_run(run.run_id)
        assert final is not None and final.status == "paused"
        assert lanes.executions[run.run_id] == 1


def _queued(run_id: str, routine_id: str, created_at_ms: int) -> RoutineRun:
    return RoutineRun(
        run_id=run_id,
        routine_id=routine_id,
        trigger_type="manual",
        status="queued",
        created_at_ms=created_at_ms,
        updated_at_ms=created_at_ms,
        fired_at_ms=created_at_ms,
        snapshot={},
        snapshot_json="{}",
    )


async def test_a_routine_run_claim_holds_its_routine_lane_until_it_expires(
    store_backend: Store,
) -> None:
    runs, claims = RoutineRepository(store_backend), RoutineClaimsRepository(store_backend)
    for i, (run_id, routine_id) in enumerate(
        [("x-0", "x"), ("x-1", "x"), ("y-0", "y"), ("x-2", "x")]
    ):
        await runs.save_run(_queued(run_id, routine_id, 1000 + i))
    first = await claims.claim("replica-a", now_ms=10_000, lease_ms=5000, limit=5)
    assert [r.run_id for r in first] == ["x-0", "y-0"]  # one per routine, oldest first
    assert await claims.claim("replica-b", now_ms=11_000, lease_ms=5000, limit=5) == []
    # x-0 ends: x's next run is claimable, by any replica.
    await runs.save_run(attrs.evolve(_queued("x-0", "x", 1000), status="completed"))
    await claims.release("replica-a", "x-0")
    second = await claims.claim("replica-b", now_ms=12_000, lease_ms=5000, limit=5)
    assert [r.run_id for r in second] == ["x-1"]
    # A renews; B stops renewing (it died): x-1 is claimable again once expired.
    assert await claims.renew("replica-a", expires_at_ms=30_000) == 1
    assert await claims.claim("replica-a", now_ms=16_999, lease_ms=5000, limit=5) == []
    taken = await claims.claim("replica-a", now_ms=17_001, lease_ms=5000, limit=5)
    assert [r.run_id for r in taken] == ["x-1"]
    assert await claims.claimed_by("x-1") == "replica-a"
