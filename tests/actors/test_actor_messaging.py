"""tell / ask semantics of the actor kernel."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from actors import (
    Actor,
    ActorDead,
    ActorError,
    ActorSystemError,
    AskTimeout,
    MailboxFull,
    open_actor_system,
)


class Recorder(Actor):
    """Records told messages; answers asks with what it has seen so far."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    async def receive(self, message: object) -> object:
        if message == "seen?":
            return list(self.seen)
        if message == "fail":
            raise ValueError("handler failed")
        if message == "slow":
            await trio.sleep(3600)
        self.seen.append(message)
        return message


async def test_messages_from_one_sender_are_handled_in_order() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder())
        for i in range(100):
            ref.tell(i)
        assert await ref.ask("seen?") == list(range(100))


async def test_each_of_concurrent_senders_keeps_its_own_order() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder())

        async def sender(tag: str) -> None:
            for i in range(50):
                ref.tell((tag, i))
                await trio.lowlevel.checkpoint()

        async with trio.open_nursery() as nursery:
            for tag in "abc":
                nursery.start_soon(sender, tag)
        seen = await ref.ask("seen?")
        assert isinstance(seen, list)
        for tag in "abc":
            assert [i for t, i in seen if t == tag] == list(range(50))


async def test_ask_returns_the_handlers_return_value() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder())
        assert await ref.ask("hello") == "hello"


async def test_ask_times_out_in_trio_time(autojump_clock: trio.testing.MockClock) -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder())
        start = trio.current_time()
        with pytest.raises(AskTimeout) as caught:
            await ref.ask("slow", timeout=2.5)
        assert trio.current_time() - start == pytest.approx(2.5)
        assert isinstance(caught.value, trio.TooSlowError)
        assert caught.value.name == "recorder"


async def test_ask_waits_for_mailbox_space_within_its_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder(), mailbox_size=1)
        ref.tell("slow")  # occupies the handler for an hour
        await trio.testing.wait_all_tasks_blocked()
        ref.tell("queued")  # fills the mailbox
        with pytest.raises(AskTimeout):
            await ref.ask("no room", timeout=1)


async def test_handler_error_reaches_the_asker_boxed_and_the_actor_keeps_serving() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder())
        with pytest.raises(ActorError) as caught:
            await ref.ask("fail")
        assert caught.value.actor_name == "recorder"
        assert isinstance(caught.value.error, ValueError)
        assert caught.value.__cause__ is caught.value.error
        assert ref.alive
        assert await ref.ask("still there") == "still there"


async def test_handler_error_on_a_told_message_crashes_the_actor() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder())
        watch = system.watch(ref)
        ref.tell("fail")
        exit = await watch.wait()
        assert exit.reason == "crashed"
        assert isinstance(exit.error, ValueError)
        assert not ref.alive
        assert system.lookup("recorder") is None


async def test_tell_to_full_mailbox_raises_mailbox_full() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder(), mailbox_size=2)
        ref.tell(1)
        ref.tell(2)
        with pytest.raises(MailboxFull) as caught:
            ref.tell(3)
        assert caught.value.name == "recorder"
        assert isinstance(caught.value, ActorSystemError)
        assert await ref.ask("seen?") == [1, 2]


async def test_mailbox_size_comes_from_the_actor_class_unless_given() -> None:
    class Tiny(Recorder):
        mailbox_size = 1

    async with open_actor_system(default_mailbox_size=5) as system:
        tiny = await system.spawn("tiny", Tiny())
        tiny.tell(1)
        with pytest.raises(MailboxFull):
            tiny.tell(2)
        plain = await system.spawn("plain", Recorder())
        for i in range(5):
            plain.tell(i)
        with pytest.raises(MailboxFull):
            plain.tell(5)


async def test_tell_and_ask_to_a_dead_actor_raise_actor_dead() -> None:
    async with open_actor_system() as system:
        ref = await system.spawn("recorder", Recorder())
        ref.stop()
        with pytest.raises(ActorDead):
            ref.tell("hi")
        with pytest.raises(ActorDead):
            await ref.ask("hi")
        await ref.wait_stopped()
        with pytest.raises(ActorDead):
            await ref.ask("hi")


async def test_ask_gets_actor_dead_when_the_actor_crashes_before_replying() -> None:
    class CrashOnTell(Actor):
        async def receive(self, message: object) -> object:
            if message == "crash":
                await trio.lowlevel.checkpoint()
                raise RuntimeError("boom")
            return message

    async with open_actor_system() as system:
        ref = await system.spawn("crashy", CrashOnTell())
        ref.tell("crash")
        with pytest.raises(ActorDead):
            await ref.ask("queued behind the crash")
