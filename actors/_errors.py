"""The actor kernel's error tree: every error it raises derives from ActorSystemError."""

from __future__ import annotations

import trio


class ActorSystemError(Exception):
    """Base class of every error raised by the actor kernel."""


class MailboxFull(ActorSystemError):
    """tell() found the actor's bounded mailbox full; the message was not delivered."""

    def __init__(self, name: str) -> None:
        super().__init__(f"mailbox of actor {name!r} is full")
        self.name = name


class ActorDead(ActorSystemError):
    """The actor (this incarnation) has stopped or crashed; the message was not handled."""

    def __init__(self, name: str) -> None:
        super().__init__(f"actor {name!r} is not running")
        self.name = name


class AskTimeout(ActorSystemError, trio.TooSlowError):
    """ask() got no reply within its timeout (measured in trio time).

    The request may still be handled later; its reply is then dropped.
    """

    def __init__(self, name: str, timeout: float) -> None:
        super().__init__(f"actor {name!r} did not reply within {timeout}s")
        self.name = name
        self.timeout = timeout


class ActorError(ActorSystemError):
    """An actor's handler raised while serving a request.

    The original exception is ``error`` (and ``__cause__``)."""

    def __init__(self, actor_name: str, error: BaseException) -> None:
        super().__init__(f"actor {actor_name!r} failed: {error!r}")
        self.actor_name = actor_name
        self.error = error


class NameTaken(ActorSystemError):
    """A live actor already has this name."""

    def __init__(self, name: str) -> None:
        super().__init__(f"an actor named {name!r} is already running")
        self.name = name


class ActorNotFound(ActorSystemError):
    """No running actor has this name and none could be activated."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no actor named {name!r} exists")
        self.name = name


class SystemClosed(ActorSystemError):
    """The actor system has shut down (or is shutting down) and accepts no new actors."""
