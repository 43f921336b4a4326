"""Channels: Telegram, Discord and Slack adapters as supervised listeners.

* :class:`ChannelsComponent` / :func:`channels_of`: the domain's place in the
  engine and its service (configuration, listeners, status, limits);
* :class:`ChannelChats`: the platform-independent chat logic (who may talk,
  sessions per conversation, streamed answers, approvals, commands);
* the adapters (``telegram``, ``discord``, ``slack``) load when a channel is
  configured (docs/channels.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

# The names mypy sees (re-exports, hence noqa: F401); at run time each loads with its
# module on first use.
if TYPE_CHECKING:
    from .chats import ChannelChats  # noqa: F401
    from .component import (  # noqa: F401
        ChannelsComponent,
        ChannelsUnavailable,
        channels_of,
        prompt_refusal,
    )
    from .config import CHANNELS, ChannelConfig, UnknownChannel  # noqa: F401
    from .ratelimit import ChannelRateLimited  # noqa: F401
    from .service import ChannelService  # noqa: F401

_exports = LazyExports(
    __name__,
    {
        ".chats": ["ChannelChats"],
        ".component": ["ChannelsComponent", "ChannelsUnavailable", "channels_of", "prompt_refusal"],
        ".config": ["CHANNELS", "ChannelConfig", "UnknownChannel"],
        ".ratelimit": ["ChannelRateLimited"],
        ".service": ["ChannelService"],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
