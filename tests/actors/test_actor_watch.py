"""Watching the end of actors."""

from __future__ import annotations

import trio

from actors import Actor, ActorExit, Terminated, open_actor_system


class Echo(Actor):
    async def receive(self, message: object) -> object:
        if message == "crash":
            raise RuntimeError("crash")
        return message


class Inbox(Actor):
    """Collects what it is told; ``arrived`` is set by the first message."""

    def __init__(self) -> None:
        self.got: list[object] = []
        self.arrived = trio.Event()

    async def receive(self, message: object) -> object:
        self.got.append(message)
        self.arrived.set()
        return None


async def test_watch_wait_returns_the_exit_once_the_actor_ended() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("echo", Echo())
        watch = system.watch("echo")
        assert watch.exit is None
        ref.stop()
        assert await watch.wait() == ActorExit("echo", "stopped", None)


async def test_watch_notify_tells_terminated_to_the_watcher() -> None:
    async with open_actor_system() as system:
        target = await system.spawn("echo", Echo())
        inbox = Inbox()
        watcher = await system.spawn("watcher", inbox)
        system.watch(target, notify=watcher)
        target.tell("crash")
        await inbox.arrived.wait()
        [message] = inbox.got
        assert isinstance(message, Terminated)
        assert message.name == "echo"
        assert message.exit.reason == "crashed"
        assert isinstance(message.exit.error, RuntimeError)


async def test_watching_an_unknown_name_resolves_at_once_as_stopped() -> None:
    async with open_actor_system() as system:
        inbox = Inbox()
        watcher = await system.spawn("watcher", inbox)
        watch = system.watch("nobody", notify=watcher)
        assert watch.exit == ActorExit("nobody", "stopped", None)
        assert await watch.wait() == ActorExit("nobody", "stopped", None)
        await inbox.arrived.wait()
        assert inbox.got == [Terminated("nobody", watch.exit)]


async def test_watching_an_ended_ref_resolves_with_its_recorded_exit() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("echo", Echo())
        ref.tell("crash")
        await ref.wait_stopped()
        watch = system.watch(ref)
        assert watch.exit is ref.exit
        assert watch.exit is not None and watch.exit.reason == "crashed"


async def test_notify_to_a_dead_watcher_is_ignored() -> None:
    async with open_actor_system() as system:
        target = await system.spawn("echo", Echo())
        watcher = await system.spawn("watcher", Inbox())
        watch = system.watch(target, notify=watcher)
        watcher.stop()
        target.stop()
        assert (await watch.wait()).reason == "stopped"


async def test_a_watch_follows_the_incarnation_not_the_name() -> None:
    async with open_actor_system() as system:
        first = await system.spawn("echo", Echo())
        watch = system.watch(first)
        first.stop()
        await first.wait_stopped()
        second = await system.spawn("echo", Echo())
        assert (await watch.wait()).reason == "stopped"
        assert second.alive
