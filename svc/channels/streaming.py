"""One answer streamed into one platform message by bounded-rate edits.

The first text the model produces is shown at once (the edit that replaces
the placeholder); later text is gathered and shown by at most one edit per
``interval_s`` (platforms limit edits per message and per chat); the final
text is split at the platform's size limit on paragraph boundaries: the
first piece is the last edit, the rest are new messages. Time is trio's
clock, so tests drive it with MockClock.
"""

from __future__ import annotations

import trio

from .platform import Button, ChatPlatform
from .text import preview, split_message

PLACEHOLDER = "…"


class StreamedReply:
    def __init__(self, platform: ChatPlatform, conversation: str, *, interval_s: float) -> None:
        self.platform = platform
        self.conversation = conversation
        self.interval_s = interval_s
        self.message_id: str | None = None
        self.text = ""
        self.edits = 0
        self._shown = PLACEHOLDER
        self._last_edit = -float("inf")
        self._changed = trio.Event()
        self.opened = trio.Event()
        """Set once the placeholder is posted (``open`` runs beside the run's start)."""

    async def open(self) -> None:
        """Post the placeholder the answer will replace."""
        self.message_id = await self.platform.send(self.conversation, PLACEHOLDER)
        self._last_edit = -float("inf")  # the first text is shown at once
        self.opened.set()

    def add(self, delta: str) -> None:
        self.text += delta
        self._changed.set()

    async def pump(self) -> None:
        """Show the growing text until cancelled (by :meth:`finish`'s caller)."""
        await self.opened.wait()
        while True:
            await self._changed.wait()
            self._changed = trio.Event()
            await trio.sleep_until(self._last_edit + self.interval_s)
            shown = preview(self.text, self.platform.message_limit)
            if shown.strip() and shown != self._shown:
                await self._edit(shown)

    async def finish(self, final_text: str, *, buttons: tuple[Button, ...] = ()) -> None:
        """Replace the streamed text by the final answer, split at the size limit."""
        pieces = split_message(final_text, self.platform.message_limit) or [PLACEHOLDER]
        await trio.sleep_until(self._last_edit + self.interval_s)
        first, rest = pieces[0], pieces[1:]
        if first != self._shown or (buttons and not rest):
            await self._edit(first, buttons=buttons if not rest else ())
        for index, piece in enumerate(rest):
            last = index == len(rest) - 1
            await self.platform.send(self.conversation, piece, buttons=buttons if last else ())

    async def _edit(self, text: str, *, buttons: tuple[Button, ...] = ()) -> None:
        assert self.message_id is not None
        self._last_edit = trio.current_time()
        await self.platform.edit(self.conversation, self.message_id, text, buttons=buttons)
        self._shown = text
        self.edits += 1


__all__ = ["PLACEHOLDER", "StreamedReply"]
