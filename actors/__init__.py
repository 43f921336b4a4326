"""The actor kernel of svc-engine: actors with bounded mailboxes on Trio.

Each actor runs in one task and handles one message at a time. ``tell`` never blocks,
``ask`` is request/reply with a timeout, ``stop`` is synchronous. Actors are started by an
``ActorSystem`` (from ``open_actor_system()``), either unsupervised (``spawn``) or in the caller's
task (``run``, for supervisors), and can be activated lazily by name (``get_or_spawn``).

This package depends only on trio, attrs and the standard library.
"""

from ._actor import Actor
from ._errors import (
    ActorDead,
    ActorError,
    ActorNotFound,
    ActorSystemError,
    AskTimeout,
    MailboxFull,
    NameTaken,
    SystemClosed,
)
from ._records import ActorExit, ExitReason, Terminated
from ._ref import ActorRef
from ._serial import SerialByKey
from ._system import ActorSystem, open_actor_system
from ._watch import Watch

__all__ = [
    "Actor",
    "ActorDead",
    "ActorError",
    "ActorExit",
    "ActorNotFound",
    "ActorRef",
    "ActorSystem",
    "ActorSystemError",
    "AskTimeout",
    "ExitReason",
    "MailboxFull",
    "NameTaken",
    "SerialByKey",
    "SystemClosed",
    "Terminated",
    "Watch",
    "open_actor_system",
]
