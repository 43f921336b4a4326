"""Queued automation v2 runs are claimed by the replicas, each run exactly once.

Two engines on one PostgreSQL database, each running at most two runs at once:
six runs queued through A are split between A and B (``FOR UPDATE SKIP
LOCKED`` claims), and every run executes once. The claiming statement itself is
also checked on both backends: a claim excludes the others until it expires.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

import svc
from svc.automations.v2.claims import RunClaims
from svc.automations.v2.claims_repository import ClaimsRepository
from svc.automations.v2.records import AutomationV2Run
from svc.automations.v2.repository import V2Repository
from svc.events import Event, EventFilter, EventStream
from svc.store import Store
from tests.fakes.turns import Turn
from tests.svc.automations.support import node, settled, v2_spec

RUNS = 6
PER_REPLICA = 2


def _claims(engine: svc.Engine) -> RunClaims:
    claims = engine.automations.v2.claims
    assert claims is not None  # a shared store: runs are claimed
    return claims


class Replicas:
    """Engines on one PostgreSQL database with the scripted model, each served in a test's
    nursery until its stop event is set (``gone`` is set once it has stopped)."""

    def __init__(
        self,
        make_settings: Callable[..., svc.Settings],
        pg_url: str,
        tmp_path: Path,
        fake_model: Any,
        **extra: Any,
    ) -> None:
        self._settings = functools.partial(
            make_settings,
            store_url=pg_url,
            default_provider="openai",
            providers={
                "openai": {
                    "url": fake_model.url,
                    "api_key": "sk-test-key-0001",
                    "default_model": "fake-model",
                }
            },
            **extra,
        )
        self._tmp_path = tmp_path
        self.stops: dict[str, trio.Event] = defaultdict(trio.Event)
        self.gone: dict[str, trio.Event] = defaultdict(trio.Event)
        self._engines: dict[str, svc.Engine] = {}

    async def start(self, nursery: trio.Nursery, name: str) -> svc.Engine:
        await nursery.start(self._serve, name)
        return self._engines[name]

    async def _serve(self, name: str, *, task_status: trio.TaskStatus[None]) -> None:
        async with svc.open_engine(self._settings(state_dir=self._tmp_path / name)) as engine:
            self._engines[name] = engine
            task_status.started()
            await self.stops[name].wait()
        self.gone[name].set()

    def stop_all(self) -> None:
        for stop in self.stops.values():
            stop.set()


async def test_queued_runs_are_split_between_two_replicas_and_run_once(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.default = lambda request: Turn.reply("done", gate=gate)
    replicas = Replicas(
        make_settings,
        pg_url,
        tmp_path,
        fake_model,
        automation_v2_max_concurrent_runs=PER_REPLICA,
    )

    async with trio.open_nursery() as nursery:
        a = await replicas.start(nursery, "a")
        b = await replicas.start(nursery, "b")
        with trio.fail_after(60):  # safety net only
            automation = await a.automations.create_v2(v2_spec([node("only", "worker")]))
            runs = [
                await a.automations.create_v2_run(automation.automation_id) for _ in range(RUNS)
            ]
            # Each replica fills its two slots; the rest stay queued in the store.
            await fake_model.wait_for_requests(2 * PER_REPLICA)
            assert len(_claims(a).held) == len(_claims(b).held) == PER_REPLICA
            gate.set()
            done = [await settled(a, run.run_id) for run in runs]
        assert {run.status for run in done} == {"completed"}
        shares = _claims(a).claimed_total, _claims(b).claimed_total
        assert sum(shares) == RUNS and min(shares) >= PER_REPLICA, shares
        assert len(fake_model.requests) == RUNS  # one node each, executed once
        ended = await a.events.replay(
            EventFilter(topic="automations/v2", types=frozenset({"run.completed"})), limit=100
        )
        assert sorted(e.run_id or "" for e in ended) == sorted(r.run_id for r in runs)
        replicas.stop_all()


def _queued(run_id: str, created_at_ms: int) -> AutomationV2Run:
    return AutomationV2Run(
        run_id=run_id,
        automation_id="automation-v2-x",
        status="queued",
        trigger_type="manual",
        created_at_ms=created_at_ms,
        updated_at_ms=created_at_ms,
        snapshot={},
        definition_hash="sha256:0",
        nodes={},
    )


async def test_a_claim_excludes_other_replicas_until_it_expires(store_backend: Store) -> None:
    runs, claims = V2Repository(store_backend), ClaimsRepository(store_backend)
    for i in range(3):
        await runs.save_run(_queued(f"run-{i}", 1000 + i))
    first = await claims.claim("replica-a", now_ms=10_000, lease_ms=5000, limit=2)
    assert [r.run_id for r in first] == ["run-0", "run-1"]  # oldest first
    second = await claims.claim("replica-b", now_ms=11_000, lease_ms=5000, limit=5)
    assert [r.run_id for r in second] == ["run-2"]
    assert await claims.claim("replica-b", now_ms=12_000, lease_ms=5000, limit=5) == []
    # A renews one lease time on; B stops renewing (it died) and loses run-2.
    assert await claims.renew("replica-a", expires_at_ms=20_000) == 2
    taken = await claims.claim("replica-a", now_ms=16_001, lease_ms=5000, limit=5)
    assert [r.run_id for r in taken] == ["run-2"]
    assert await claims.claimed_by("run-2") == "replica-a"
    # A released run (it ended, or waits for an approval) is anyone's again.
    await claims.release("replica-a", "run-0")
    assert [
        r.run_id for r in await claims.claim("replica-b", now_ms=16_002, lease_ms=5000, limit=5)
    ] == ["run-0"]


async def test_a_run_left_by_a_stopped_replica_is_claimed_and_finished_by_the_other(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.default = lambda request: Turn.reply("done", gate=gate)
    replicas = Replicas(make_settings, pg_url, tmp_path, fake_model)

    async with trio.open_nursery() as nursery:
        a = await replicas.start(nursery, "a")
        with trio.fail_after(60):  # safety net only
            automation = await a.automations.create_v2(v2_spec([node("only", "worker")]))
            run = await a.automations.create_v2_run(automation.automation_id)
            await fake_model.wait_for_requests(1)  # A claimed it and runs it
            assert _claims(a).held == {run.run_id}
            b = await replicas.start(nursery, "b")
            replicas.stops["a"].set()  # A stops mid-run; B takes the run over
            await replicas.gone["a"].wait()
            gate.set()
            done = await settled(b, run.run_id)
        assert done.status == "completed"
        assert _claims(b).claimed_total == 1  # B ran it to the end
        assert len(fake_model.requests) == 2  # A's interrupted attempt, B's
        replicas.stop_all()


async def test_a_run_cancelled_through_one_replica_stops_on_the_one_running_it(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path, fake_model: Any
) -> None:
    gate = trio.Event()  # never set: the run only ends by its cancel
    fake_model.default = lambda request: Turn.reply("done", gate=gate)
    replicas = Replicas(make_settings, pg_url, tmp_path, fake_model)

    async with trio.open_nursery() as nursery:
        a = await replicas.start(nursery, "a")
        b = await replicas.start(nursery, "b")
        with trio.fail_after(60):  # safety net only
            automation = await a.automations.create_v2(v2_spec([node("only", "worker")]))
            run = await a.automations.create_v2_run(automation.automation_id)
            await fake_model.wait_for_requests(1)
            runner, other = (a, b) if _claims(a).held else (b, a)
            assert _claims(runner).held == {run.run_id}
            cancelled = EventFilter(run_id=run.run_id, types=frozenset({"run.cancelled"}))
            with EventStream(runner.events, cancelled, after_seq=0) as stream:
                assert await other.automations.cancel_v2_run(run.run_id, "not needed") is True
                seen: list[Event] = []
                while len(seen) < 2:  # the cancel's, then the runner's as its execution stops
                    seen += await stream.receive()
        final = await runner.automations.get_v2_run(run.run_id)
        assert final is not None and final.status == "cancelled"
        replicas.stop_all()
