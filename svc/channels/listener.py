"""A channel listener's life: connect, serve, and reconnect with backoff when dropped.

Each adapter implements :meth:`ChannelListener.session` (one connection to its
platform, returning or raising when it ends); :meth:`ChannelListener.run` is
the supervised child: it reconnects after a drop with exponential backoff
(1 s doubling to 60 s, back to 1 s after a connection that got going), under
trio's clock, so MockClock tests are exact. An error is recorded in the
status (tokens scrubbed) rather than raised: a platform that is down must not
use up the supervisor's restart budget; only a bug escapes and is restarted.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs
import httpx
import trio

from ..errors import SvcError
from ..logs import scrub

if TYPE_CHECKING:
    from .config import ChannelConfig
    from .context import ChannelContext

log = logging.getLogger("svc.channels")

BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 60.0


@attrs.define
class ListenerStatus:
    state: str = "stopped"
    """``stopped``, ``connecting``, ``running``, ``reconnecting`` or ``failed``."""
    last_error: str | None = None
    last_error_code: str | None = None
    last_reconnect_at: int | None = None
    listener_start_count: int = 0
    reconnects: int = 0


class PlatformError(SvcError):
    """The chat platform refused a request"""

    code = "CHANNEL_PLATFORM_ERROR"
    status = 502
    retryable = True


class PlatformAuthFailed(PlatformError):
    """The chat platform refused the bot token"""

    code = "CHANNEL_AUTH_FAILED"
    retryable = False


class ChannelListener:
    """Base of the adapters (see the module docstring)."""

    name = "channel"

    def __init__(self, context: ChannelContext, config: ChannelConfig) -> None:
        self.context = context
        self.config = config
        self.status = context.status_of(self.name)
        self.connected = trio.Event()
        """Set while a connection is up (tests wait on it)."""
        self.handlers: trio.Nursery | None = None
        self.failed = trio.Event()
        """Set when the platform refused the token (tests wait on it)."""

    async def session(self) -> None:
        """One connection: set ``self.status.state = "running"`` once connected."""
        raise NotImplementedError

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        status = self.status
        status.listener_start_count += 1
        # Handlers of messages live here, outside any one connection: a dropped
        # connection must not cut off an answer that is being streamed.
        async with trio.open_nursery() as handlers:
            self.handlers = handlers
            task_status.started()
            await self._reconnecting()

    async def _reconnecting(self) -> None:
        status = self.status
        delay = BACKOFF_FIRST_S
        try:
            while True:
                status.state = "connecting" if status.reconnects == 0 else "reconnecting"
                try:
                    await self._one_session()
                    error: str | None = "the platform closed the connection"
                    code: str | None = "CHANNEL_DISCONNECTED"
                except PlatformAuthFailed as exc:
                    self._record(exc.message, exc.code)
                    status.state = "failed"
                    self.failed.set()
                    # A refused token will not start working by retrying; a new
                    # configuration restarts the listener.
                    await trio.sleep_forever()
                except (OSError, httpx.HTTPError, SvcError, ValueError) as exc:
                    error, code = str(exc) or type(exc).__name__, getattr(exc, "code", None)
                    code = code or "CHANNEL_CONNECTION_FAILED"
                self._record(error, code)
                if self.connected.is_set():
                    delay = BACKOFF_FIRST_S  # it had got going: a fresh drop, not a failing start
                    # A fresh event only once the old one fired: a waiter for the first
                    # connection keeps waiting on the event that connection will set.
                    self.connected = trio.Event()
                status.state = "reconnecting"
                status.reconnects += 1
                await trio.sleep(delay)
                status.last_reconnect_at = self.context.now_ms()
                delay = min(delay * 2, BACKOFF_MAX_S)
        finally:
            status.state = "stopped"

    async def _one_session(self) -> None:
        try:
            await self.session()
        except BaseExceptionGroup as group:
            # Adapters run their handlers in a nursery; the error that ended the
            # connection comes out as itself, so the handlers above can see it.
            leaf = sole_error(group)
            if leaf is None:
                raise
            raise leaf from None

    def spawn(self, handler: Callable[[Any], Awaitable[None]], item: Any) -> None:
        """Handle one inbound item in the background; its failure is logged, never raised."""
        assert self.handlers is not None, "the listener is not running"
        self.handlers.start_soon(self._guarded, handler, item)

    async def _guarded(self, handler: Callable[[Any], Awaitable[None]], item: Any) -> None:
        try:
            await handler(item)
        except Exception as exc:
            # One bad message must not end the listener (and with it every chat).
            log.warning(
                "%s: handling a message failed: %s", self.name, self.context.scrub(str(exc))
            )

    def mark_connected(self) -> None:
        self.status.state = "running"
        self.connected.set()

    def _record(self, error: str | None, code: str | None) -> None:
        text = self.context.scrub(error) if error else None
        self.status.last_error, self.status.last_error_code = text, code
        log.warning("%s listener: %s", self.name, text)

    async def verify(self) -> dict[str, object]:
        """Check the token against the platform (``POST /channels/{name}/verify``)."""
        raise NotImplementedError


def sole_error(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    """The one exception inside (nested) one-member groups, or None when there are several."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        if len(error.exceptions) != 1:
            return None
        error = error.exceptions[0]
    return error


__all__ = [
    "BACKOFF_FIRST_S",
    "BACKOFF_MAX_S",
    "ChannelListener",
    "ListenerStatus",
    "PlatformAuthFailed",
    "PlatformError",
    "scrub",
    "sole_error",
]
