"""Starting, stopping, crashing, names and shutdown of actors."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from actors import (
    Actor,
    ActorDead,
    ActorError,
    ActorExit,
    ActorRef,
    NameTaken,
    SystemClosed,
    open_actor_system,
)


class Lifecycle(Actor):
    """Records its hooks; can start nursery work and block in a handler."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.stopped_with: list[BaseException | None] = []
        self.work_cancelled = False
        self.work_started = trio.Event()
        self.handling = trio.Event()

    async def started(self) -> None:
        self.events.append("started")

    async def receive(self, message: object) -> object:
        self.events.append(f"receive {message}")
        if message == "work":
            self.nursery.start_soon(self._work)
        elif message == "block":
            self.handling.set()
            await trio.sleep_forever()
        elif message == "crash in nursery":
            self.nursery.start_soon(self._crash)
        elif message == "stop yourself":
            self.stop()
        return message

    async def _work(self) -> None:
        self.work_started.set()
        try:
            await trio.sleep_forever()
        finally:
            self.work_cancelled = True

    async def _crash(self) -> None:
        raise KeyError("background")

    async def stopped(self, error: BaseException | None) -> None:
        self.events.append("stopped")
        self.stopped_with.append(error)


def all_tasks() -> set[trio.lowlevel.Task]:
    """Every task currently alive in this trio run."""
    found: set[trio.lowlevel.Task] = set()
    stack = [trio.lowlevel.current_root_task()]
    while stack:
        task = stack.pop()
        assert task is not None
        found.add(task)
        for nursery in task.child_nurseries:
            stack.extend(nursery.child_tasks)
    return found


async def test_started_runs_before_the_first_message_and_spawn_waits_for_it() -> None:
    async with open_actor_system() as system:
        actor = Lifecycle()
        ref = await system.spawn("life", actor)
        assert actor.events == ["started"]
        assert actor.name == "life" and actor.ref is ref and actor.system is system
        assert await ref.ask("hi") == "hi"
        assert actor.events == ["started", "receive hi"]


async def test_stop_runs_stopped_hook_fails_queued_asks_and_cancels_nursery_work() -> None:
    async with open_actor_system() as system:
        actor = Lifecycle()
        ref = await system.spawn("life", actor)
        ref.tell("work")
        await actor.work_started.wait()
        ref.tell("block")
        await actor.handling.wait()
        outcomes: list[str] = []

        async def queued_ask() -> None:
            try:
                await ref.ask("queued")
            except ActorDead:
                outcomes.append("dead")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(queued_ask)
            await trio.testing.wait_all_tasks_blocked()
            ref.stop()
            with pytest.raises(ActorDead):
                ref.tell("right after stop")
        exit = await ref.wait_stopped()

    assert outcomes == ["dead"]
    assert exit == ActorExit("life", "stopped", None)
    assert actor.work_cancelled
    assert actor.events[-1] == "stopped"
    assert actor.stopped_with == [None]
    assert "receive queued" not in actor.events


async def test_stop_is_synchronous_for_tell_and_idempotent() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("life", Lifecycle())
        system.stop("life")
        assert not ref.alive
        with pytest.raises(ActorDead):
            ref.tell("x")
        ref.stop()
        system.stop("nobody")
        assert (await ref.wait_stopped()).reason == "stopped"


async def test_actor_stopping_itself_ends_with_reason_normal() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("life", Lifecycle())
        ref.tell("stop yourself")
        assert (await ref.wait_stopped()).reason == "normal"


async def test_exception_in_a_nursery_task_crashes_the_actor() -> None:
    async with open_actor_system() as system:
        actor = Lifecycle()
        ref = await system.spawn("life", actor)
        ref.tell("crash in nursery")
        exit = await ref.wait_stopped()
        assert exit.reason == "crashed"
        assert isinstance(exit.error, KeyError)
        assert len(actor.stopped_with) == 1
        assert isinstance(actor.stopped_with[0], KeyError)


async def test_exception_in_started_fails_spawn_and_run() -> None:
    class BadStart(Actor):
        stopped_called = False

        async def started(self) -> None:
            raise OSError("cannot load state")

        async def stopped(self, error: BaseException | None) -> None:
            self.stopped_called = True

    async with open_actor_system() as system:
        actor = BadStart()
        with pytest.raises(ActorError) as caught:
            await system.spawn("bad", actor)
        assert isinstance(caught.value.error, OSError)
        assert system.lookup("bad") is None
        assert not actor.stopped_called  # stopped() only pairs with a started() that returned

        async with trio.open_nursery() as nursery:
            with pytest.raises(OSError):
                await nursery.start(system.run, "bad", BadStart())


async def test_run_serves_in_the_callers_task_and_returns_the_exit() -> None:
    async with open_actor_system() as system, trio.open_nursery() as nursery:
        exits: list[ActorExit] = []

        async def supervise(*, task_status: trio.TaskStatus[ActorRef]) -> None:
            exits.append(await system.run("runner", Lifecycle(), task_status=task_status))

        ref = await nursery.start(supervise)
        assert await ref.ask("hi") == "hi"
        ref.stop()
    assert exits == [ActorExit("runner", "stopped", None)]


async def test_run_reraises_a_crash_after_cleanup_and_watchers() -> None:
    async with open_actor_system() as system:
        errors: list[BaseException] = []

        async def supervise(*, task_status: trio.TaskStatus[ActorRef]) -> None:
            try:
                await system.run("runner", Lifecycle(), task_status=task_status)
            except KeyError as error:
                assert system.lookup("runner") is None  # cleanup happened first
                errors.append(error)

        async with trio.open_nursery() as nursery:
            ref = await nursery.start(supervise)
            watch = system.watch("runner")
            ref.tell("crash in nursery")
        exit = await watch.wait()
        assert exit.reason == "crashed"
        assert errors == [exit.error]


async def test_run_cancelled_from_outside_cleans_up_and_propagates_cancelled() -> None:
    async with open_actor_system() as system:
        actor = Lifecycle()
        async with trio.open_nursery() as nursery:
            ref = await nursery.start(system.run, "runner", actor)
            watch = system.watch(ref)
            nursery.cancel_scope.cancel()
        assert nursery.cancel_scope.cancelled_caught
        assert actor.events[-1] == "stopped"
        assert watch.exit == ActorExit("runner", "stopped", None)
        assert system.lookup("runner") is None


async def test_stopped_hook_is_bounded_by_stop_grace(
    autojump_clock: trio.testing.MockClock,
) -> None:
    class SlowStop(Actor):
        stop_grace = 2.0

        async def receive(self, message: object) -> object:
            return message

        async def stopped(self, error: BaseException | None) -> None:
            await trio.sleep(3600)

    async with open_actor_system() as system:
        ref = await system.spawn("slow", SlowStop())
        start = trio.current_time()
        ref.stop()
        await ref.wait_stopped()
        assert trio.current_time() - start == pytest.approx(2.0)


async def test_live_name_is_taken_and_reusable_after_the_actor_ended() -> None:
    async with open_actor_system() as system:
        first = await system.spawn("name", Lifecycle())
        with pytest.raises(NameTaken):
            await system.spawn("name", Lifecycle())
        first.stop()
        second = await system.spawn("name", Lifecycle())  # waits for the old cleanup
        assert first != second and hash(first) != hash(second)
        assert first.name == second.name
        assert not first.alive and second.alive
        with pytest.raises(ActorDead):
            first.tell("old incarnation")
        assert system.lookup("name") is second
        assert {first, second} == {first, second, second}


async def test_lookup_names_and_actor_count_see_live_actors_only() -> None:
    async with open_actor_system() as system:
        await system.spawn("session/1", Lifecycle())
        await system.spawn("session/2", Lifecycle())
        await system.spawn("tool/1", Lifecycle())
        assert system.names("session/") == ["session/1", "session/2"]
        assert system.actor_count == 3
        system.stop("session/1")
        assert system.lookup("session/1") is None
        assert system.names() == ["session/2", "tool/1"]
        assert system.actor_count == 2


async def test_system_exit_stops_every_actor_and_leaves_no_task_running() -> None:
    before = all_tasks()
    actors = [Lifecycle() for _ in range(5)]
    async with open_actor_system() as system:
        for i, actor in enumerate(actors):
            ref = await system.spawn(f"a{i}", actor)
            ref.tell("work")
        async with trio.open_nursery() as nursery:
            # One more actor run by the caller, as a supervisor would.
            await nursery.start(system.run, "run", Lifecycle())
            nursery.cancel_scope.cancel()
        await trio.testing.wait_all_tasks_blocked()
        assert len(all_tasks()) > len(before)
    assert all_tasks() == before
    assert all(actor.events[-1] == "stopped" and actor.work_cancelled for actor in actors)
    with pytest.raises(SystemClosed):
        await system.spawn("late", Lifecycle())


async def test_error_in_the_system_block_propagates_unwrapped_after_shutdown() -> None:
    actor = Lifecycle()
    with pytest.raises(ZeroDivisionError):
        async with open_actor_system() as system:
            await system.spawn("a", actor)
            1 / 0  # noqa: B018
    assert actor.events[-1] == "stopped"


async def test_started_may_use_the_actors_own_nursery() -> None:
    class Ticker(Actor):
        async def started(self) -> None:
            self.ticking = trio.Event()
            self.nursery.start_soon(self._tick)

        async def _tick(self) -> None:
            self.ticking.set()
            await trio.sleep_forever()

        async def receive(self, message: object) -> object:
            return self.ticking.is_set()

    async with open_actor_system() as system:
        ticker = Ticker()
        ref = await system.spawn("ticker", ticker)
        await ticker.ticking.wait()
        assert await ref.ask("ticking?") is True


async def test_a_stop_during_started_gives_the_spawner_a_dead_ref() -> None:
    class SlowStart(Actor):
        async def started(self) -> None:
            self.ref.stop()
            await trio.sleep_forever()

    async with open_actor_system() as system:
        ref = await system.spawn("slow", SlowStart())
        assert not ref.alive
        assert (await ref.wait_stopped()).reason == "stopped"


async def test_cancelling_the_spawner_during_started_stops_the_actor() -> None:
    entered = trio.Event()

    class Hangs(Actor):
        async def started(self) -> None:
            entered.set()
            await trio.sleep_forever()

    async with open_actor_system() as system:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(system.spawn, "hangs", Hangs())
                await entered.wait()
                scope.cancel()
        watch = system.watch("hangs")
        assert (await watch.wait()).reason == "stopped"
        assert system.lookup("hangs") is None
