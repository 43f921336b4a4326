"""Immutable records describing how an actor ended."""

from __future__ import annotations

from typing import Literal

import attrs

ExitReason = Literal["normal", "stopped", "crashed"]


@attrs.frozen
class ActorExit:
    """How one incarnation of an actor ended.

    ``normal``: the actor asked to stop itself (``Actor.stop()``).
    ``stopped``: it was stopped from outside (``ref.stop()``, ``system.stop()``, system shutdown,
    or cancellation of the task running it).
    ``crashed``: a handler, ``started()`` or a task in its nursery raised; ``error`` is that
    exception.
    """

    name: str
    reason: ExitReason
    error: BaseException | None = None


@attrs.frozen
class Terminated:
    """Message told to a watcher (``system.watch(target, notify=ref)``) when the target ends."""

    name: str
    exit: ActorExit
