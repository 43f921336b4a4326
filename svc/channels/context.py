"""What every adapter gets from the channels service."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import httpx

from ..clock import Clock
from ..logs import scrub
from .listener import ListenerStatus
from .repository import ChannelRepository

if TYPE_CHECKING:
    from .chats import ChannelChats


@attrs.define(eq=False)
class ChannelContext:
    http: httpx.AsyncClient
    chats: ChannelChats
    repo: ChannelRepository
    clock: Clock
    state_dir: Callable[[], Path]
    statuses: dict[str, ListenerStatus] = attrs.field(factory=dict)

    def status_of(self, name: str) -> ListenerStatus:
        return self.statuses.setdefault(name, ListenerStatus())

    def now_ms(self) -> int:
        return self.clock.now_ms()

    def scrub(self, text: str) -> str:
        """``text`` without any registered secret (every bot token and signing secret)."""
        return scrub(text)


__all__ = ["ChannelContext"]
