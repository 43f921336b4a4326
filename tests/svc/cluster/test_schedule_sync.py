"""Schedules edited on a standby replica reach the scheduler's leader at once.

Two replicas on one database: A starts first and leads the scheduler. A routine
created through B fires on A without a leadership change; pausing it through B
takes it off A's heap.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio

import svc
from svc.automations.component import AutomationsComponent
from svc.automations.replica_sync import ScheduleSync
from svc.cluster import SharedCluster
from svc.component import default_components
from tests.svc.automations.test_scheduler import RECORD, Recorder, RecorderEntrypoint

LEASE_MS = 1500


async def _stored(engine: svc.Engine) -> tuple[object, int | None, int | None]:
    stored = await engine.automations.routines.repo.stored_routine("made-on-b")
    assert stored is not None
    return stored


def _sync(engine: svc.Engine) -> ScheduleSync:
    (component,) = [c for c in engine.components if isinstance(c, AutomationsComponent)]
    assert component.sync is not None
    return component.sync


async def test_a_routine_created_and_paused_on_a_standby_reaches_the_leader(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path
) -> None:
    fires: list[tuple[str, int | None]] = []  # (replica, slot)
    fired = trio.Event()

    def recorder(name: str) -> Recorder:
        class Named(Recorder):
            async def __call__(self, ctx):  # type: ignore[no-untyped-def]
                nonlocal fired
                fires.append((name, ctx.run.scheduled_at_ms))
                fired.set()
                fired = trio.Event()
                return await super().__call__(ctx)

        return Named()

    stops = {"a": trio.Event(), "b": trio.Event()}
    engines: dict[str, svc.Engine] = {}

    async def replica(name: str, *, task_status: trio.TaskStatus[None]) -> None:
        settings = make_settings(
            store_url=pg_url, state_dir=tmp_path / name, cluster_lease_ms=LEASE_MS
        )
        components = [*default_components(), RecorderEntrypoint({RECORD: recorder(name)})]
        async with svc.open_engine(settings, components=components) as engine:
            engines[name] = engine
            task_status.started()
            await stops[name].wait()

    async with trio.open_nursery() as nursery:
        await nursery.start(replica, "a")
        cluster = engines["a"].cluster
        assert isinstance(cluster, SharedCluster)
        with trio.fail_after(30):  # safety net only
            await cluster.until_leading()  # A leads before B exists
        await nursery.start(replica, "b")
        a, b = engines["a"], engines["b"]
        assert not b.cluster.leading
        with trio.fail_after(30):  # safety net only
            await b.automations.routines.create(
                {
                    "routine_id": "made-on-b",
                    "name": "made on b",
                    "schedule": {"interval_seconds": {"seconds": 1}},
                    "entrypoint": RECORD,
                }
            )
            while not fires:
                await fired.wait()
            # Fired by the leader, which never served the request (its run is
            # claimed, so it executes on either replica).
            assert a.automations.routines.fire_times("made-on-b")[1] is not None
            await a.automations.journal.drained()  # the fire's times are stored
            stored_last = (await _stored(a))[2]
            assert stored_last is not None
            # B's memory never saw that fire; renaming through B keeps the stored
            # times (a later leader must not fire those slots again).
            assert b.automations.routines.fire_times("made-on-b")[1] is None
            await b.automations.routines.patch("made-on-b", {"name": "renamed on b"})
            assert (await _stored(a))[2] is not None
            assert (await _stored(a))[2] >= stored_last
            await b.automations.routines.patch("made-on-b", {"status": "paused"})
            # The leader syncs each event it follows in order; the rename's may still be
            # in flight, so wait sync by sync until the pause has arrived.
            while a.automations.routines._routines["made-on-b"].status != "paused":
                await _sync(a).wait_synced(_sync(a).synced + 1)
            assert a.automations.routines.entry("made-on-b") is None  # off the heap
        for stop in stops.values():
            stop.set()
