"""One supervised child: running an incarnation in a task, and stopping it gracefully."""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Sequence

import trio

from ._spec import ChildInfo, ChildSpec, Restart

logger = logging.getLogger("supervisors")

# Extra time allowed, on top of a child's shutdown_grace, for it to finish after being
# cancelled; only used to bound shielded shutdowns (a child that ignores cancellation for
# longer is a bug we refuse to hang on).
CANCEL_SLACK = 1.0


class Child:
    """Mutable state of one supervised child across its incarnations."""

    __slots__ = (
        "done",
        "generation",
        "lock",
        "removed",
        "restarts",
        "running",
        "scope",
        "spec",
        "stopping",
        "value",
    )

    def __init__(self, spec: ChildSpec) -> None:
        self.spec = spec
        self.generation = 0
        self.scope: trio.CancelScope | None = None
        self.running = False
        self.restarts = 0
        self.value: object = None
        # Set when the current incarnation's task has finished; replaced at each start.
        self.done = trio.Event()
        self.done.set()
        # Set while the supervisor itself is ending this incarnation: its end is no failure.
        self.stopping = False
        # Dynamic supervisors: terminated by request, must never be restarted.
        self.removed = False
        # Dynamic supervisors serialise start/restart/terminate per child with it.
        self.lock = trio.Lock()

    def info(self) -> ChildInfo:
        return ChildInfo(self.spec.id, self.running, self.restarts)


ExitHandler = Callable[[Child, int, "BaseException | None"], Awaitable[None]]


class _StartedProxy:
    """Forwards task_status.started() and records that (and with what) the child started."""

    __slots__ = ("_child", "_status", "started_called")

    def __init__(self, child: Child, status: trio.TaskStatus[object]) -> None:
        self._child = child
        self._status = status
        self.started_called = False

    def started(self, value: object = None) -> None:
        self.started_called = True
        self._child.running = True
        self._child.value = value
        self._status.started(value)


async def run_child(
    child: Child,
    on_exit: ExitHandler,
    task_status: trio.TaskStatus[object] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run one incarnation of ``child`` in this task (started with ``nursery.start``).

    A failure before the child called ``task_status.started()`` propagates, so the starter's
    ``nursery.start`` raises it. Afterwards, the end of the incarnation (return or exception) is
    reported to ``on_exit(child, generation, error)``, unless the supervisor was stopping it:
    a child cancelled or stopped by its supervisor has not failed. Cancellation from outside
    (the supervisor's nursery being cancelled) propagates as usual.
    """
    child.generation += 1
    generation = child.generation
    child.done = done = trio.Event()
    status = _StartedProxy(child, task_status)
    error: BaseException | None = None
    try:
        # This incarnation's own scope: the supervisor cancels it to stop just this child;
        # its Cancelled ends here instead of reaching the supervisor's nursery.
        with trio.CancelScope() as child.scope:
            if child.stopping:
                # Stopped before this incarnation even began: do not start it.
                child.scope.cancel()
            try:
                await child.spec.start(*child.spec.args, task_status=status)
            except Exception as exc:
                if not status.started_called:
                    raise
                error = exc
    finally:
        child.running = False
        done.set()
    if child.stopping:
        return
    await on_exit(child, generation, error)


def should_restart(restart: Restart, error: BaseException | None) -> bool:
    return restart is Restart.PERMANENT or (restart is Restart.TRANSIENT and error is not None)


def _request_stop(child: Child) -> float:
    """Ask ``child`` to stop; return the deadline after which it gets cancelled."""
    # Marked first: whatever way it ends now (graceful return, cancellation, even an error while
    # stopping), it is not a failure and must not be restarted.
    child.stopping = True
    if child.done.is_set():
        return -math.inf
    if child.spec.stop is not None and child.running:
        try:
            child.spec.stop()
        except Exception:
            logger.exception("child %r: stop() raised; cancelling it", child.spec.id)
        else:
            return trio.current_time() + child.spec.shutdown_grace
    # No graceful stop (or still starting): cancellation is trio's graceful stop.
    return -math.inf


async def _finish_stop(child: Child, deadline: float) -> None:
    with trio.move_on_at(deadline):
        await child.done.wait()
    if not child.done.is_set():
        if deadline > -math.inf:
            logger.warning(
                "child %r ignored its graceful stop for %ss; cancelling it",
                child.spec.id,
                child.spec.shutdown_grace,
            )
        if child.scope is not None:
            # Grace is over: cancel just this child's scope (its siblings keep running).
            child.scope.cancel()
        await child.done.wait()


async def stop_child(child: Child) -> None:
    """Stop one child: ``spec.stop()`` then, after ``shutdown_grace``, cancel; wait for its end.

    Does nothing if it is not running. The supervisor marks it as stopping first, so its end is
    not treated as a failure.
    """
    await _finish_stop(child, _request_stop(child))


async def stop_in_reverse(children: Sequence[Child]) -> None:
    """Stop ``children`` one after the other, last first, each with its own grace."""
    for child in reversed(children):
        await stop_child(child)


async def stop_together(children: Sequence[Child]) -> None:
    """Stop ``children`` concurrently: request all stops at once, then give each its own grace.

    Used by dynamic supervisors, whose children are independent: one slow stopped() hook must
    not delay the others.
    """
    deadlines = [(_request_stop(child), index) for index, child in enumerate(children)]
    # Earliest deadline first, so each child is cancelled on time although we wait in turn.
    for deadline, index in sorted(deadlines):
        await _finish_stop(children[index], deadline)


def shutdown_bound(children: Sequence[Child], *, sequential: bool) -> float:
    """Upper bound on stopping ``children``, used to bound shielded shutdowns."""
    graces = [c.spec.shutdown_grace + CANCEL_SLACK for c in children if not c.done.is_set()]
    if not graces:
        return CANCEL_SLACK
    return sum(graces) if sequential else max(graces)
