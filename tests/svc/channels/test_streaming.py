"""Streamed answers under MockClock: the first text at once, then bounded-rate edits."""

from __future__ import annotations

import itertools

import trio
import trio.testing

from svc.channels.platform import Button
from svc.channels.streaming import PLACEHOLDER, StreamedReply
from svc.channels.text import split_message


class RecordingPlatform:
    name = "test"

    def __init__(self, limit: int = 4096) -> None:
        self.message_limit = limit
        self.log: list[tuple[float, str, str, str]] = []
        self._ids = 0

    async def send(self, conversation: str, text: str, *, buttons: tuple[Button, ...] = ()) -> str:
        self._ids += 1
        self.log.append((trio.current_time(), "send", str(self._ids), text))
        return str(self._ids)

    async def edit(
        self, conversation: str, message_id: str, text: str, *, buttons: tuple[Button, ...] = ()
    ) -> None:
        self.log.append((trio.current_time(), "edit", message_id, text))


async def test_first_text_is_shown_at_once_then_edits_are_rate_bounded(
    autojump_clock: trio.testing.MockClock,
) -> None:
    platform = RecordingPlatform()
    reply = StreamedReply(platform, "c", interval_s=1.0)
    await reply.open()
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reply.pump)
        for index in range(50):  # a token every 100 ms for 5 s
            reply.add(f"w{index} ")
            await trio.sleep(0.1)
        nursery.cancel_scope.cancel()
    await reply.finish(reply.text)
    edits = [entry for entry in platform.log if entry[1] == "edit"]
    assert edits[0][0] == start  # the first model text did not wait
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(edits)]
    assert all(gap >= 1.0 for gap in gaps)
    assert 5 <= len(edits) <= 7
    assert edits[-1][3] == reply.text.strip()
    assert platform.log[0][1:] == ("send", "1", PLACEHOLDER)


async def test_a_long_answer_is_split_on_paragraphs_into_new_messages(
    autojump_clock: trio.testing.MockClock,
) -> None:
    platform = RecordingPlatform(limit=40)
    reply = StreamedReply(platform, "c", interval_s=0.5)
    await reply.open()
    paragraphs = ["first paragraph " * 2, "second paragraph " * 2, "third one"]
    await reply.finish("\n\n".join(p.strip() for p in paragraphs))
    kinds = [(kind, text) for _, kind, _, text in platform.log]
    assert kinds[1] == ("edit", paragraphs[0].strip())
    assert kinds[2:] == [("send", paragraphs[1].strip()), ("send", paragraphs[2])]


def test_split_message_prefers_paragraphs_then_lines_then_words() -> None:
    assert split_message("short", 10) == ["short"]
    assert split_message("aaaa\n\nbbbb", 6) == ["aaaa", "bbbb"]
    assert split_message("aaaa bbbb cccc", 9) == ["aaaa bbbb", "cccc"]
    pieces = split_message("x" * 25, 10)
    assert pieces == ["x" * 10, "x" * 10, "x" * 5]
    assert all(len(p) <= 10 for p in split_message("word " * 100, 10))


class InFlightPlatform(RecordingPlatform):
    """A platform whose server applies an edit once its request arrives, answering later.

    An edit whose caller is cancelled after the request left is still applied: the
    server never hears of the cancellation. The partial text's request arrives late.
    """

    def __init__(self, server: trio.Nursery) -> None:
        super().__init__()
        self.server = server
        self.applied: list[str] = []
        self.partial_in_flight = trio.Event()

    async def edit(
        self, conversation: str, message_id: str, text: str, *, buttons: tuple[Button, ...] = ()
    ) -> None:
        answered = trio.Event()

        async def apply(delay: float) -> None:
            await trio.sleep(delay)
            self.applied.append(text)
            answered.set()

        final = text == "the whole answer"
        # The partial request is slower than the edit interval (a busy platform).
        self.server.start_soon(apply, 0.0 if final else 1.5)
        if not final:
            self.partial_in_flight.set()
        await answered.wait()


async def test_an_edit_in_flight_when_the_answer_completes_never_overwrites_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as server:
        platform = InFlightPlatform(server)
        reply = StreamedReply(platform, "c", interval_s=1.0)
        await reply.open()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(reply.pump)
            reply.add("the whole")
            await platform.partial_in_flight.wait()
            nursery.cancel_scope.cancel()  # the run finished while that edit was in flight
        await reply.finish("the whole answer")
    assert platform.applied[-1] == "the whole answer", platform.applied
