"""Lazy activation: get_or_spawn through factories registered by name prefix."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from actors import Actor, ActorError, ActorNotFound, ActorRef, open_actor_system


class Session(Actor):
    """A session whose state is persisted on stop and rehydrated by the factory."""

    def __init__(self, store: dict[str, int], count: int = 0) -> None:
        self.store = store
        self.count = count

    async def receive(self, message: object) -> object:
        if message == "inc":
            self.count += 1
        return self.count

    async def stopped(self, error: BaseException | None) -> None:
        await trio.lowlevel.checkpoint()  # persisting takes a checkpoint or two
        self.store[self.name] = self.count


class Store:
    """A fake persistent store plus a factory that rehydrates sessions from it."""

    def __init__(self, *known: str) -> None:
        self.data: dict[str, int] = dict.fromkeys(known, 0)
        self.factory_calls: list[str] = []

    async def factory(self, name: str) -> Actor | None:
        self.factory_calls.append(name)
        await trio.lowlevel.checkpoint()  # a real store read would yield
        if name not in self.data:
            return None
        return Session(self.data, self.data[name])


async def test_get_or_spawn_activates_through_the_factory() -> None:
    store = Store("session/a")
    async with open_actor_system() as system:
        system.register_factory("session/", store.factory)
        ref = await system.get_or_spawn("session/a")
        assert ref.alive and ref.name == "session/a"
        assert await system.get_or_spawn("session/a") is ref
        assert store.factory_calls == ["session/a"]


async def test_concurrent_get_or_spawn_calls_activate_once() -> None:
    store = Store("session/a")
    async with open_actor_system() as system:
        system.register_factory("session/", store.factory)
        refs: list[ActorRef] = []

        async def get() -> None:
            refs.append(await system.get_or_spawn("session/a"))

        async with trio.open_nursery() as nursery:
            for _ in range(10):
                nursery.start_soon(get)
        assert store.factory_calls == ["session/a"]
        assert len(refs) == 10 and len(set(refs)) == 1


async def test_get_or_spawn_raises_actor_not_found_when_the_factory_returns_none() -> None:
    store = Store()
    async with open_actor_system() as system:
        system.register_factory("session/", store.factory)
        failures: list[BaseException] = []

        async def get() -> None:
            try:
                await system.get_or_spawn("session/missing")
            except ActorNotFound as error:
                failures.append(error)

        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(get)
        assert len(failures) == 3
        assert store.factory_calls == ["session/missing"]


async def test_get_or_spawn_without_a_matching_factory_raises_actor_not_found() -> None:
    async with open_actor_system() as system:
        system.register_factory("session/", Store().factory)
        with pytest.raises(ActorNotFound):
            await system.get_or_spawn("tool/x")


async def test_a_stopped_actor_is_rehydrated_with_the_state_it_persisted() -> None:
    store = Store("session/a")
    async with open_actor_system() as system:
        system.register_factory("session/", store.factory)
        ref = await system.get_or_spawn("session/a")
        for _ in range(3):
            ref.tell("inc")
        assert await ref.ask("count") == 3
        ref.stop()
        # Activation waits for the old incarnation's stopped() to persist before rehydrating.
        again = await system.get_or_spawn("session/a")
        assert again != ref
        assert await again.ask("count") == 3
        assert store.factory_calls == ["session/a", "session/a"]


async def test_the_longest_matching_prefix_wins() -> None:
    used: list[str] = []

    def factory(tag: str):  # type: ignore[no-untyped-def]
        async def build(name: str) -> Actor:
            used.append(tag)
            return Session({})

        return build

    async with open_actor_system() as system:
        system.register_factory("agent/", factory("agent"))
        system.register_factory("agent/planner/", factory("planner"))
        await system.get_or_spawn("agent/planner/1")
        await system.get_or_spawn("agent/coder/1")
        assert used == ["planner", "agent"]
        assert system.factory_for("agent/planner/2") is not system.factory_for("agent/x")
        assert system.factory_for("nothing") is None


async def test_a_custom_spawner_starts_the_activated_actor() -> None:
    store = Store("session/a")
    async with open_actor_system() as system, trio.open_nursery() as nursery:
        spawned: list[str] = []

        async def spawner(name: str, actor: Actor) -> ActorRef:
            spawned.append(name)
            ref: ActorRef = await nursery.start(system.run, name, actor)
            return ref

        system.register_factory("session/", store.factory, spawner=spawner)
        ref = await system.get_or_spawn("session/a")
        assert spawned == ["session/a"]
        assert await ref.ask("count") == 0
        ref.stop()


async def test_a_failing_factory_fails_every_concurrent_caller() -> None:
    async def broken(name: str) -> Actor:
        await trio.lowlevel.checkpoint()
        raise OSError("store down")

    async with open_actor_system() as system:
        system.register_factory("session/", broken)
        errors: list[BaseException] = []

        async def get() -> None:
            try:
                await system.get_or_spawn("session/a")
            except (OSError, ActorError) as error:
                errors.append(error)

        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(get)
        assert sorted(type(e).__name__ for e in errors) == ["ActorError", "ActorError", "OSError"]


async def test_a_waiter_takes_over_when_the_activating_caller_is_cancelled() -> None:
    calls: list[str] = []

    async def first_call_hangs(name: str) -> Actor:
        calls.append(name)
        if len(calls) == 1:
            await trio.sleep_forever()
        return Session({})

    async with open_actor_system() as system:
        system.register_factory("session/", first_call_hangs)
        result: list[ActorRef] = []
        first = trio.CancelScope()

        async def first_caller() -> None:
            with first:
                await system.get_or_spawn("session/a")

        async def second_caller() -> None:
            result.append(await system.get_or_spawn("session/a"))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(first_caller)
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(second_caller)
            await trio.testing.wait_all_tasks_blocked()
            first.cancel()
        assert calls == ["session/a", "session/a"]
        assert result[0].alive
