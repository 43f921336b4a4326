"""Child specifications and the policies a supervisor applies to them."""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable

import attrs


class Strategy(enum.Enum):
    """Which children a supervisor restarts when one fails."""

    ONE_FOR_ONE = "one_for_one"
    """Only the failed child."""
    ONE_FOR_ALL = "one_for_all"
    """All children: the others are stopped (reverse order), then all restarted in order."""
    REST_FOR_ONE = "rest_for_one"
    """The failed child and those started after it (stopped in reverse, restarted in order)."""


class Restart(enum.Enum):
    """When a child that ended is restarted."""

    PERMANENT = "permanent"
    """Always, even after a normal return."""
    TRANSIENT = "transient"
    """Only if it raised."""
    TEMPORARY = "temporary"
    """Never."""


@attrs.frozen
class ChildSpec:
    """How to start, restart and stop one child.

    ``start(*args, task_status=...)`` is run with ``nursery.start``: the child counts as live
    once it called ``task_status.started(value)``, and ``value`` is what starting it returns.
    At shutdown ``stop()`` (if given) is called first as a graceful request; if the child has
    not ended ``shutdown_grace`` seconds later, its cancel scope is cancelled. Without ``stop``,
    the child is cancelled at once (cancellation is trio's graceful stop).
    """

    id: str
    start: Callable[..., Awaitable[object]]
    args: tuple[object, ...] = ()
    restart: Restart = Restart.PERMANENT
    shutdown_grace: float = 5.0
    stop: Callable[[], None] | None = None


@attrs.frozen
class ChildInfo:
    """Snapshot of one child: is it running, and how often it was restarted."""

    id: str
    running: bool
    restarts: int
