"""Watch: a one-shot subscription to the end of an actor incarnation."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import trio

from ._errors import ActorDead, MailboxFull
from ._records import ActorExit, Terminated

if TYPE_CHECKING:
    from ._ref import ActorRef

logger = logging.getLogger("actors")


class Watch:
    """Resolves once, when the watched incarnation has ended (after its cleanup).

    ``wait()`` returns the ActorExit. If a ``notify`` ref was given, it is told
    ``Terminated(name, exit)`` at that moment; a dead or full notify target is skipped (logged
    at debug level), since the watcher being gone is not the watched actor's problem.
    """

    __slots__ = ("_event", "_exit", "_notify", "name")

    def __init__(self, name: str, notify: ActorRef | None) -> None:
        self.name = name
        self._notify = notify
        self._exit: ActorExit | None = None
        self._event: trio.Event | None = None

    def __repr__(self) -> str:
        return f"<Watch {self.name!r} exit={self._exit!r}>"

    @property
    def exit(self) -> ActorExit | None:
        """The target's exit once it ended, else None."""
        return self._exit

    async def wait(self) -> ActorExit:
        """Wait until the target has ended; return its ActorExit.

        Cancellation just stops waiting."""
        if self._exit is None:
            if self._event is None:
                self._event = trio.Event()
            await self._event.wait()
        else:
            await trio.lowlevel.checkpoint()
        assert self._exit is not None
        return self._exit

    def _resolve(self, exit: ActorExit) -> None:
        if self._exit is not None:
            return
        self._exit = exit
        if self._event is not None:
            self._event.set()
        notify, self._notify = self._notify, None
        if notify is not None:
            try:
                notify.tell(Terminated(self.name, exit))
            except (ActorDead, MailboxFull) as error:
                logger.debug("watch of %r: could not notify %r: %s", self.name, notify.name, error)
