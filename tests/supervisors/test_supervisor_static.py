"""Static supervisors: ordered start, reverse shutdown, strategies, restart types, intensity."""

from __future__ import annotations

import functools

import pytest
import trio
import trio.testing

from actors import Actor, ActorExit, open_actor_system
from supervisors import (
    ChildInfo,
    ChildSpec,
    Restart,
    Strategy,
    SupervisorEscalation,
    actor_child_spec,
    open_supervisor,
    run_supervisor,
)


class Worker:
    """A scriptable child. Each incarnation logs "start X" / "end X" and runs until told to
    crash or finish (or until it is cancelled / gracefully stopped)."""

    def __init__(self, name: str, log: list[str], *, honour_stop: bool = True) -> None:
        self.name = name
        self.log = log
        self.honour_stop = honour_stop
        self.starts = 0
        self._action: str | None = None
        self._wake = trio.Event()
        self._changed = trio.Event()

    def spec(self, **kwargs: object) -> ChildSpec:
        return ChildSpec(id=self.name, start=self.run, **kwargs)  # type: ignore[arg-type]

    async def run(self, *, task_status: trio.TaskStatus[Worker] = trio.TASK_STATUS_IGNORED) -> None:
        self.starts += 1
        self._action = None
        self._wake = trio.Event()
        self.log.append(f"start {self.name}")
        self._changed.set()
        self._changed = trio.Event()
        try:
            task_status.started(self)
            await self._wake.wait()
            if self._action == "crash":
                raise RuntimeError(f"{self.name} crashed")
        finally:
            self.log.append(f"end {self.name}")

    def crash(self) -> None:
        self._action = "crash"
        self._wake.set()

    def finish(self) -> None:
        self._action = "finish"
        self._wake.set()

    def graceful_stop(self) -> None:
        if self.honour_stop:
            self.finish()

    async def wait_starts(self, n: int) -> None:
        while self.starts < n:
            await self._changed.wait()


def workers(log: list[str], *names: str) -> list[Worker]:
    return [Worker(name, log) for name in names]


async def test_children_start_in_order_each_live_before_the_next() -> None:
    log: list[str] = []
    seen_when_starting: list[list[str]] = []

    class Snooping(Worker):
        async def run(
            self, *, task_status: trio.TaskStatus[Worker] = trio.TASK_STATUS_IGNORED
        ) -> None:
            seen_when_starting.append(list(log))
            await super().run(task_status=task_status)

    a, b, c = (Snooping(name, log) for name in "abc")
    async with open_supervisor([a.spec(), b.spec(), c.spec()]) as supervisor:
        assert log == ["start a", "start b", "start c"]
        assert seen_when_starting == [[], ["start a"], ["start a", "start b"]]
        assert supervisor.which_children() == [
            ChildInfo("a", True, 0),
            ChildInfo("b", True, 0),
            ChildInfo("c", True, 0),
        ]


async def test_shutdown_stops_children_in_reverse_order_using_their_graceful_stop() -> None:
    log: list[str] = []
    a, b, c = workers(log, "a", "b", "c")
    specs = [w.spec(stop=w.graceful_stop) for w in (a, b, c)]
    async with open_supervisor(specs):
        log.clear()
    assert log == ["end c", "end b", "end a"]


async def test_a_child_ignoring_its_graceful_stop_is_cancelled_after_its_grace(
    autojump_clock: trio.testing.MockClock,
) -> None:
    log: list[str] = []
    stubborn = Worker("stubborn", log, honour_stop=False)
    polite = Worker("polite", log)
    specs = [
        polite.spec(stop=polite.graceful_stop, shutdown_grace=10),
        stubborn.spec(stop=stubborn.graceful_stop, shutdown_grace=3),
    ]
    async with open_supervisor(specs):
        log.clear()
        start = trio.current_time()
    assert trio.current_time() - start == pytest.approx(3)
    assert log == ["end stubborn", "end polite"]


async def test_a_child_without_graceful_stop_is_cancelled_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    log: list[str] = []
    (a,) = workers(log, "a")
    async with open_supervisor([a.spec()]):
        start = trio.current_time()
    assert trio.current_time() == start
    assert log == ["start a", "end a"]


async def test_one_for_one_restarts_only_the_failed_child() -> None:
    log: list[str] = []
    a, b, c = workers(log, "a", "b", "c")
    async with open_supervisor([a.spec(), b.spec(), c.spec()]) as supervisor:
        log.clear()
        b.crash()
        await b.wait_starts(2)
        assert log == ["end b", "start b"]
        assert [info.restarts for info in supervisor.which_children()] == [0, 1, 0]
        assert supervisor.restart_count == 1


async def test_one_for_all_stops_the_others_in_reverse_then_restarts_all_in_order() -> None:
    log: list[str] = []
    a, b, c = workers(log, "a", "b", "c")
    async with open_supervisor(
        [a.spec(), b.spec(), c.spec()], strategy=Strategy.ONE_FOR_ALL
    ) as supervisor:
        log.clear()
        b.crash()
        await c.wait_starts(2)
        assert log == ["end b", "end c", "end a", "start a", "start b", "start c"]
        assert all(info.running for info in supervisor.which_children())


async def test_rest_for_one_restarts_the_failed_child_and_those_started_after_it() -> None:
    log: list[str] = []
    a, b, c, d = workers(log, "a", "b", "c", "d")
    async with open_supervisor([w.spec() for w in (a, b, c, d)], strategy=Strategy.REST_FOR_ONE):
        log.clear()
        b.crash()
        await d.wait_starts(2)
        assert log == ["end b", "end d", "end c", "start b", "start c", "start d"]
        assert a.starts == 1


async def test_a_permanent_child_is_restarted_even_after_a_normal_return() -> None:
    log: list[str] = []
    (a,) = workers(log, "a")
    async with open_supervisor([a.spec(restart=Restart.PERMANENT)]):
        a.finish()
        await a.wait_starts(2)


async def test_a_transient_child_is_restarted_only_after_an_error() -> None:
    log: list[str] = []
    a, b = workers(log, "a", "b")
    async with open_supervisor(
        [a.spec(restart=Restart.TRANSIENT), b.spec(restart=Restart.TRANSIENT)]
    ) as supervisor:
        a.crash()
        await a.wait_starts(2)
        b.finish()
        await trio.testing.wait_all_tasks_blocked()
        assert b.starts == 1
        assert supervisor.which_children() == [ChildInfo("a", True, 1), ChildInfo("b", False, 0)]


async def test_a_temporary_child_is_never_restarted() -> None:
    log: list[str] = []
    a, b = workers(log, "a", "b")
    async with open_supervisor(
        [a.spec(restart=Restart.TEMPORARY), b.spec()], strategy=Strategy.ONE_FOR_ALL
    ) as supervisor:
        a.crash()
        await trio.testing.wait_all_tasks_blocked()
        assert a.starts == 1 and b.starts == 1  # nor did it trigger the strategy
        assert supervisor.restart_count == 0


async def test_restarts_beyond_the_intensity_within_the_window_escalate(
    autojump_clock: trio.testing.MockClock,
) -> None:
    log: list[str] = []
    a, b = workers(log, "a", "b")
    specs = [a.spec(), b.spec(stop=b.graceful_stop)]
    with pytest.raises(SupervisorEscalation) as caught:
        async with open_supervisor(specs, max_restarts=3, max_seconds=5, name="root"):
            for n in range(2, 5):
                a.crash()
                await a.wait_starts(n)
                await trio.sleep(1)
            a.crash()  # the 4th failure within 5 seconds
            await trio.sleep_forever()
    assert caught.value.supervisor == "root"
    assert caught.value.child_id == "a"
    assert isinstance(caught.value.error, RuntimeError)
    assert caught.value.__cause__ is caught.value.error
    assert a.starts == 4
    assert log[-2:] == ["end a", "end b"]  # everything was stopped before escalating


async def test_restarts_spread_beyond_the_window_do_not_escalate(
    autojump_clock: trio.testing.MockClock,
) -> None:
    log: list[str] = []
    (a,) = workers(log, "a")
    async with open_supervisor([a.spec()], max_restarts=3, max_seconds=5) as supervisor:
        for n in range(2, 12):
            a.crash()
            await a.wait_starts(n)
            await trio.sleep(2)  # at most 3 restarts fall in any 5 s window
        assert supervisor.restart_count == 10


async def test_zero_max_restarts_escalates_on_the_first_failure() -> None:
    log: list[str] = []
    (a,) = workers(log, "a")
    with pytest.raises(SupervisorEscalation):
        async with open_supervisor([a.spec()], max_restarts=0):
            a.crash()
            await trio.sleep_forever()


async def test_a_child_failing_to_start_stops_the_started_ones_and_raises() -> None:
    log: list[str] = []
    a, c = workers(log, "a", "c")

    async def broken(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        raise OSError("port in use")

    specs = [a.spec(), ChildSpec("b", broken), c.spec()]
    with pytest.raises(OSError, match="port in use"):
        async with open_supervisor(specs):
            pytest.fail("the block must not run")  # pragma: no cover
    assert log == ["start a", "end a"]


async def test_an_error_in_the_block_shuts_down_in_order_and_propagates_unwrapped() -> None:
    log: list[str] = []
    a, b = workers(log, "a", "b")
    with pytest.raises(KeyError):
        async with open_supervisor([a.spec(stop=a.graceful_stop), b.spec(stop=b.graceful_stop)]):
            raise KeyError("oops")
    assert log[-2:] == ["end b", "end a"]


async def test_nested_supervisor_escalation_is_a_failure_the_parent_restarts() -> None:
    log: list[str] = []
    (leaf,) = workers(log, "leaf")
    (sibling,) = workers(log, "sibling")
    inner = ChildSpec(
        "inner",
        functools.partial(run_supervisor, [leaf.spec()], max_restarts=0, name="inner"),
    )
    async with open_supervisor([sibling.spec(), inner], max_restarts=5) as root:
        leaf.crash()  # inner gives up at once; root restarts inner (and with it, leaf)
        await leaf.wait_starts(2)
        await trio.testing.wait_all_tasks_blocked()  # inner finished starting
        assert root.which_children() == [ChildInfo("sibling", True, 0), ChildInfo("inner", True, 1)]
        assert sibling.starts == 1


async def test_duplicate_child_ids_are_rejected() -> None:
    log: list[str] = []
    a1, a2 = Worker("a", log), Worker("a", log)
    with pytest.raises(ValueError, match="duplicate"):
        async with open_supervisor([a1.spec(), a2.spec()]):
            pass  # pragma: no cover


async def test_a_supervisor_cancelled_from_outside_cancels_its_children_without_restarts() -> None:
    log: list[str] = []
    a, b = workers(log, "a", "b")
    with trio.CancelScope() as outer:
        async with open_supervisor([a.spec(), b.spec(stop=b.graceful_stop)]) as supervisor:
            outer.cancel()
            await trio.sleep_forever()
    assert outer.cancelled_caught
    assert sorted(log) == ["end a", "end b", "start a", "start b"]
    assert supervisor.restart_count == 0


async def test_a_nested_supervisor_is_shut_down_with_its_parent() -> None:
    log: list[str] = []
    leaf, sibling = workers(log, "leaf", "sibling")
    inner = ChildSpec("inner", functools.partial(run_supervisor, [leaf.spec()], name="inner"))
    async with open_supervisor([inner, sibling.spec(stop=sibling.graceful_stop)]):
        log.clear()
    assert log == ["end sibling", "end leaf"]


class Keeper(Actor):
    """An actor child of a static supervisor."""

    def __init__(self, born: list[Keeper], stops: list[ActorExit | None]) -> None:
        self.born = born
        self.stops = stops
        self.value = 0
        born.append(self)

    async def receive(self, message: object) -> object:
        if message == "crash":
            raise RuntimeError("keeper crashed")
        self.value += 1
        return self.value

    async def stopped(self, error: BaseException | None) -> None:
        self.stops.append(None if error is None else ActorExit(self.name, "crashed", error))


async def test_an_actor_child_restarts_fresh_and_is_stopped_gracefully_by_name() -> None:
    born: list[Keeper] = []
    stops: list[ActorExit | None] = []
    async with open_actor_system() as system:
        spec = actor_child_spec(system, "keeper", lambda: Keeper(born, stops))
        async with open_supervisor([spec]) as supervisor:
            ref = system.lookup("keeper")
            assert ref is not None
            assert await ref.ask("inc") == 1
            watch = system.watch(ref)
            ref.tell("crash")
            await watch.wait()
            await trio.testing.wait_all_tasks_blocked()
            again = system.lookup("keeper")
            assert again is not None and again != ref
            assert await again.ask("inc") == 1  # a fresh actor, not the crashed object
            assert supervisor.which_children() == [ChildInfo("keeper", True, 1)]
            final = system.watch(again)
        assert (await final.wait()).reason == "stopped"
    assert len(born) == 2
    assert stops[0] is not None and stops[1] is None  # the crash, then a graceful stop


async def test_a_restart_failing_midway_is_retried_without_forgetting_later_children() -> None:
    log: list[str] = []
    a, c = workers(log, "a", "c")
    attempts = 0

    async def flaky(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        nonlocal attempts
        attempts += 1
        if attempts == 2:  # the first restart fails while starting
            raise OSError("not yet")
        log.append("start b")
        task_status.started()
        await trio.sleep_forever()

    specs = [a.spec(), ChildSpec("b", flaky), c.spec()]
    async with open_supervisor(specs, strategy=Strategy.ONE_FOR_ALL) as supervisor:
        log.clear()
        a.crash()
        await c.wait_starts(2)
        await trio.testing.wait_all_tasks_blocked()
        assert [info.running for info in supervisor.which_children()] == [True, True, True]
        assert supervisor.restart_count == 2
        assert log[-3:] == ["start a", "start b", "start c"]
