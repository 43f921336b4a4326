"""What the platform-independent chat logic needs from an adapter, and what it gets from one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

import attrs


@attrs.frozen
class Button:
    label: str
    data: str
    """Opaque to the platform; comes back in a :class:`ButtonPress` (at most 64 bytes)."""


@attrs.frozen
class Upload:
    """A file sent to the bot, already stored under ``channel_uploads/``."""

    path: str
    filename: str
    mime: str
    size: int


@attrs.frozen
class Inbound:
    """One user message, as every adapter reports it."""

    channel: str
    conversation: str
    """The platform conversation: a chat, a channel, or a thread within one."""
    user_ids: tuple[str, ...]
    """Every identifier of the sender that ``allowed_users`` may name (id first, then names)."""
    text: str
    is_group: bool = False
    mentioned: bool = False
    message_id: str | None = None
    uploads: tuple[Upload, ...] = ()
    recorded: Callable[[], Awaitable[None]] | None = attrs.field(default=None, eq=False, repr=False)
    """Returns once the adapter has recorded the message as received (Telegram's stored
    offset), or raises when it could not: the chat logic reads freely before that,
    and waits for it before any effect (a reply, a run, a new session)."""

    @property
    def user(self) -> str:
        return self.user_ids[0] if self.user_ids else ""

    async def wait_recorded(self) -> None:
        if self.recorded is not None:
            await self.recorded()


@attrs.frozen
class ButtonPress:
    channel: str
    conversation: str
    user_ids: tuple[str, ...]
    data: str
    message_id: str | None = None


class ChatPlatform(Protocol):
    """Sending to one platform; errors other than rate limits are the adapter's to raise."""

    name: str
    message_limit: int

    async def send(self, conversation: str, text: str, *, buttons: tuple[Button, ...] = ()) -> str:
        """Post a message; returns its platform id."""
        ...

    async def edit(
        self, conversation: str, message_id: str, text: str, *, buttons: tuple[Button, ...] = ()
    ) -> None:
        """Replace a posted message's text (and buttons: none removes them)."""
        ...


__all__ = ["Button", "ButtonPress", "ChatPlatform", "Inbound", "Upload"]
