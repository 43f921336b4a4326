"""Dynamic supervisors: children added at run time, actors rehydrated on restart."""

from __future__ import annotations

import functools

import pytest
import trio
import trio.testing

from actors import Actor, ActorDead, ActorRef, ActorSystem, open_actor_system
from supervisors import (
    ChildInfo,
    ChildSpec,
    DynamicSupervisor,
    Restart,
    SupervisorEscalation,
    open_dynamic_supervisor,
    open_supervisor,
    run_dynamic_supervisor,
)


class Counter(Actor):
    """Counts "inc"; "crash" raises (a told crash kills the actor); started() signals."""

    def __init__(self, born: list[Counter], initial: int = 0) -> None:
        self.count = initial
        self.born = born
        self.ready = trio.Event()

    async def started(self) -> None:
        self.born.append(self)
        self.ready.set()

    async def receive(self, message: object) -> object:
        if message == "inc":
            self.count += 1
        elif message == "crash":
            raise RuntimeError("counter crashed")
        return self.count


async def wait_incarnations(born: list[Counter], n: int) -> Counter:
    """Wait (event-driven) until the n-th incarnation has started; return it."""
    while len(born) < n:
        await trio.testing.wait_all_tasks_blocked()
    await born[n - 1].ready.wait()
    return born[n - 1]


async def parked(*, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    task_status.started("ready")
    await trio.sleep_forever()


async def test_start_child_returns_the_started_value_and_rejects_duplicate_ids() -> None:
    async with open_dynamic_supervisor() as supervisor:
        assert await supervisor.start_child(ChildSpec("one", parked)) == "ready"
        with pytest.raises(ValueError, match="already has"):
            await supervisor.start_child(ChildSpec("one", parked))
        assert supervisor.count == 1
        assert supervisor.which_children() == [ChildInfo("one", True, 0)]


async def test_a_child_failing_to_start_is_raised_and_forgotten() -> None:
    async def broken(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        raise OSError("nope")

    async with open_dynamic_supervisor() as supervisor:
        with pytest.raises(OSError):
            await supervisor.start_child(ChildSpec("broken", broken))
        assert supervisor.count == 0


async def test_terminate_child_stops_it_gracefully_and_it_is_not_restarted() -> None:
    stopped = trio.Event()
    ended: list[str] = []

    async def graceful(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        await stopped.wait()
        ended.append("gracefully")

    async with open_dynamic_supervisor() as supervisor:
        await supervisor.start_child(ChildSpec("g", graceful, stop=stopped.set))
        await supervisor.terminate_child("g")
        assert ended == ["gracefully"]
        assert supervisor.count == 0
        await supervisor.terminate_child("g")  # unknown id: no-op


async def test_terminate_child_cancels_a_child_that_ignores_its_stop_after_the_grace(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with open_dynamic_supervisor() as supervisor:
        await supervisor.start_child(ChildSpec("p", parked, stop=lambda: None, shutdown_grace=4))
        start = trio.current_time()
        await supervisor.terminate_child("p")
        assert trio.current_time() - start == pytest.approx(4)


async def test_a_crashed_actor_restarts_with_fresh_state_from_make_actor() -> None:
    born: list[Counter] = []
    async with open_actor_system() as system, open_dynamic_supervisor() as supervisor:
        ref = await supervisor.start_actor(system, "counter", lambda: Counter(born))
        ref.tell("inc")
        ref.tell("inc")
        assert await ref.ask("count?") == 2
        ref.tell("crash")
        second = await wait_incarnations(born, 2)
        assert second is not born[0]
        new_ref = system.lookup("counter")
        assert new_ref is not None and new_ref != ref
        assert await new_ref.ask("count?") == 0
        with pytest.raises(ActorDead):
            ref.tell("inc")
        assert supervisor.which_children() == [ChildInfo("counter", True, 1)]


async def test_an_actor_that_stops_normally_is_not_restarted_when_transient() -> None:
    born: list[Counter] = []
    async with open_actor_system() as system, open_dynamic_supervisor() as supervisor:
        ref = await supervisor.start_actor(system, "counter", lambda: Counter(born))
        ref.stop()
        await ref.wait_stopped()
        await trio.testing.wait_all_tasks_blocked()
        assert len(born) == 1
        assert supervisor.count == 0


async def test_make_actor_may_be_async() -> None:
    born: list[Counter] = []

    async def load() -> Actor:
        await trio.lowlevel.checkpoint()
        return Counter(born, initial=41)

    async with open_actor_system() as system, open_dynamic_supervisor() as supervisor:
        ref = await supervisor.start_actor(system, "counter", load, restart=Restart.PERMANENT)
        ref.tell("inc")
        assert await ref.ask("count?") == 42


async def test_dynamic_intensity_counts_restarts_across_children_and_escalates(
    autojump_clock: trio.testing.MockClock,
) -> None:
    born: list[Counter] = []
    system_box: list[ActorSystem] = []
    with pytest.raises(SupervisorEscalation) as caught:
        async with open_actor_system() as system:
            system_box.append(system)
            async with open_dynamic_supervisor(
                name="sessions", max_restarts=2, max_seconds=10
            ) as supervisor:
                for name in ("s1", "s2", "s3"):
                    await supervisor.start_actor(system, name, lambda: Counter(born))
                for n, name in enumerate(("s1", "s2"), start=4):
                    ref = system.lookup(name)
                    assert ref is not None
                    ref.tell("crash")
                    await wait_incarnations(born, n)
                ref = system.lookup("s3")
                assert ref is not None
                ref.tell("crash")  # third restart within 10 s: too many
                await trio.sleep_forever()
    assert caught.value.supervisor == "sessions"
    assert caught.value.child_id == "s3"
    assert system_box[0].actor_count == 0


async def test_a_dynamic_supervisor_nests_under_a_static_one() -> None:
    async with open_supervisor(
        [ChildSpec("sessions", functools.partial(run_dynamic_supervisor, name="sessions"))]
    ) as root:
        assert [info.id for info in root.which_children()] == ["sessions"]

    async with trio.open_nursery() as nursery:
        dynamic = await nursery.start(functools.partial(run_dynamic_supervisor, name="d"))
        assert isinstance(dynamic, DynamicSupervisor)
        assert await dynamic.start_child(ChildSpec("p", parked)) == "ready"
        nursery.cancel_scope.cancel()


async def test_shutdown_stops_all_children_together_each_within_its_grace(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with open_dynamic_supervisor() as supervisor:
        for i in range(3):
            await supervisor.start_child(
                ChildSpec(f"p{i}", parked, stop=lambda: None, shutdown_grace=2 + i)
            )
        start = trio.current_time()
    # Together, not one after the other: the longest grace, not the sum.
    assert trio.current_time() - start == pytest.approx(4)


class Session(Actor):
    """A session rehydrated from a store; persists its count when it stops."""

    def __init__(self, store: dict[str, int], born: list[str]) -> None:
        self.store = store
        self.count = 0
        self.born = born

    async def started(self) -> None:
        self.count = self.store.get(self.name, 0)
        self.born.append(self.name)

    async def receive(self, message: object) -> object:
        if message == "inc":
            self.count += 1
            self.store[self.name] = self.count  # write-through persistence
        elif message == "crash":
            raise RuntimeError("session crashed")
        return self.count


async def test_actor_spawner_runs_factory_actors_under_the_supervisor_and_rehydrates() -> None:
    store = {"session/a": 10}
    born: list[str] = []
    factory_calls: list[str] = []

    async def factory(name: str) -> Actor | None:
        factory_calls.append(name)
        return Session(store, born) if name in store else None

    async with open_actor_system() as system, open_dynamic_supervisor() as supervisor:
        system.register_factory("session/", factory, spawner=supervisor.actor_spawner(system))
        ref = await system.get_or_spawn("session/a")
        assert supervisor.which_children() == [ChildInfo("session/a", True, 0)]
        ref.tell("inc")
        assert await ref.ask("count?") == 11
        ref.tell("crash")
        while len(born) < 2:
            await trio.testing.wait_all_tasks_blocked()
        again = await system.get_or_spawn("session/a")
        assert again != ref
        assert await again.ask("count?") == 11  # rehydrated by the factory, not the old object
        assert factory_calls == ["session/a", "session/a"]
        assert supervisor.which_children() == [ChildInfo("session/a", True, 1)]


async def test_actor_spawner_drops_a_child_whose_factory_no_longer_finds_it() -> None:
    store = {"session/a": 0}
    born: list[str] = []

    async def factory(name: str) -> Actor | None:
        return Session(store, born) if name in store else None

    async with open_actor_system() as system, open_dynamic_supervisor() as supervisor:
        system.register_factory("session/", factory, spawner=supervisor.actor_spawner(system))
        ref = await system.get_or_spawn("session/a")
        del store["session/a"]  # deleted while running
        ref.tell("crash")
        await ref.wait_stopped()
        await trio.testing.wait_all_tasks_blocked()
        assert supervisor.count == 0
        assert system.lookup("session/a") is None


async def test_get_or_spawn_during_a_restart_returns_the_restarted_incarnation() -> None:
    store = {"session/a": 0}
    born: list[str] = []
    gate = trio.Event()
    factory_calls = 0

    async def factory(name: str) -> Actor | None:
        nonlocal factory_calls
        factory_calls += 1
        if factory_calls == 2:  # the restart's rehydration is slow
            await gate.wait()
        return Session(store, born)

    async with open_actor_system() as system, open_dynamic_supervisor() as supervisor:
        system.register_factory("session/", factory, spawner=supervisor.actor_spawner(system))
        ref = await system.get_or_spawn("session/a")
        ref.tell("crash")
        await ref.wait_stopped()
        await trio.testing.wait_all_tasks_blocked()  # the restart is parked in the factory
        assert system.lookup("session/a") is None
        got: list[ActorRef] = []
        async with trio.open_nursery() as nursery:

            async def get() -> None:
                got.append(await system.get_or_spawn("session/a"))

            nursery.start_soon(get)
            await trio.testing.wait_all_tasks_blocked()
            assert not got  # waiting for the restart rather than starting a duplicate
            gate.set()
        assert got[0] is system.lookup("session/a")
        assert born == ["session/a", "session/a"]
        assert supervisor.which_children() == [ChildInfo("session/a", True, 1)]
