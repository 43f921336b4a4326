"""Static supervisors: a fixed, ordered list of children and a restart strategy."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import trio

from ._child import Child, run_child, should_restart, shutdown_bound, stop_in_reverse
from ._errors import SupervisorEscalation
from ._groups import reraise_unwrapped
from ._intensity import RestartIntensity
from ._spec import ChildInfo, ChildSpec, Restart, Strategy

logger = logging.getLogger("supervisors")


class Supervisor:
    """A running supervisor (from ``open_supervisor`` / ``run_supervisor``).

    All starts, stops and restarts of its children are serialised by one lock, so strategies
    that touch several children never interleave.
    """

    def __init__(
        self,
        children: Sequence[ChildSpec],
        strategy: Strategy,
        max_restarts: int,
        max_seconds: float,
        name: str,
    ) -> None:
        ids = [spec.id for spec in children]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate child ids in supervisor {name!r}: {ids}")
        self.name = name
        self.strategy = strategy
        self.restart_count = 0
        """Restarts performed (each failure handled counts once, whatever the strategy)."""
        self._children = [Child(spec) for spec in children]
        self._intensity = RestartIntensity(max_restarts, max_seconds)
        self._lock = trio.Lock()
        self._closing = False
        self._nursery: trio.Nursery | None = None

    def __repr__(self) -> str:
        return f"<Supervisor {self.name!r} {self.strategy.value} children={len(self._children)}>"

    def which_children(self) -> list[ChildInfo]:
        """A snapshot of every child, in start order."""
        return [child.info() for child in self._children]

    # -- starting ------------------------------------------------------------------------

    async def _start(self, child: Child) -> None:
        assert self._nursery is not None
        child.stopping = False
        await self._nursery.start(run_child, child, self._child_exited)

    async def _start_all(self) -> None:
        """Start every child in order; on a failure stop the started ones (reverse) and raise."""
        started: list[Child] = []
        try:
            for child in self._children:
                await self._start(child)
                started.append(child)
        except BaseException:
            self._closing = True
            with trio.CancelScope(shield=True):
                # Shielded: also when the failure is a cancellation, the children already
                # started must be stopped in order. Bounded by their graces.
                with trio.move_on_after(shutdown_bound(started, sequential=True)):
                    await stop_in_reverse(started)
            raise

    # -- failures ------------------------------------------------------------------------

    async def _child_exited(
        self, child: Child, generation: int, error: BaseException | None
    ) -> None:
        """Runs in the task of the child that ended (it is not being stopped by us)."""
        async with self._lock:
            if self._closing or generation != child.generation:
                # Shutting down, or a strategy already restarted this child meanwhile.
                return
            if not should_restart(child.spec.restart, error):
                logger.info(
                    "supervisor %r: child %r ended; not restarted", self.name, child.spec.id
                )
                return
            if error is not None:
                logger.warning(
                    "supervisor %r: child %r failed", self.name, child.spec.id, exc_info=error
                )
            await self._restart(child, error)

    async def _restart(self, failed: Child, error: BaseException | None) -> None:
        """Apply the strategy for ``failed``; a restart failing at startup is a new failure."""
        left_over: list[Child] = []
        while True:
            if not self._intensity.allow_restart():
                await self._escalate(failed, error)
            self.restart_count += 1
            targets = await self._stop_affected(failed, left_over)
            current = failed
            try:
                for current in targets:
                    current.restarts += 1
                    await self._start(current)
                return
            except Exception as exc:
                # Same as Erlang: a child that cannot even start again has failed again, and
                # that counts against the restart intensity. The targets not started yet must
                # not be forgotten by the next attempt.
                failed, error = current, exc
                left_over = [c for c in targets if c.done.is_set()]
                logger.warning(
                    "supervisor %r: restarting %r failed", self.name, failed.spec.id, exc_info=exc
                )

    async def _stop_affected(self, failed: Child, left_over: list[Child]) -> list[Child]:
        """Stop the siblings the strategy restarts with ``failed``; return all to (re)start.

        The result is in start order: ``failed``, the affected siblings that were running (not
        temporary ones: those are stopped, never restarted), and ``left_over`` (children a failed
        previous attempt had yet to start). Siblings that had ended normally stay ended.
        """
        restart = {id(failed)} | {id(c) for c in left_over}
        if self.strategy is not Strategy.ONE_FOR_ONE:
            index = self._children.index(failed)
            if self.strategy is Strategy.ONE_FOR_ALL:
                affected = [c for c in self._children if c is not failed]
            else:
                affected = self._children[index + 1 :]
            running = [c for c in affected if not c.done.is_set()]
            await stop_in_reverse(running)
            restart |= {id(c) for c in running if c.spec.restart is not Restart.TEMPORARY}
        return [c for c in self._children if id(c) in restart]

    async def _escalate(self, failed: Child, error: BaseException | None) -> None:
        self._closing = True
        logger.error(
            "supervisor %r: child %r exceeded %d restarts in %ss; escalating",
            self.name,
            failed.spec.id,
            self._intensity.max_restarts,
            self._intensity.max_seconds,
        )
        # Escalation: stop every child (reverse order, graceful) first, then raise into our
        # nursery; that cancels the supervisor's block and surfaces as SupervisorEscalation to
        # the parent, which treats it as a failure of this supervisor.
        await stop_in_reverse(self._children)
        raise SupervisorEscalation(self.name, failed.spec.id, error) from error

    # -- shutdown ------------------------------------------------------------------------

    async def _shutdown(self) -> None:
        """Stop all children in reverse order, each with its grace; then cancel leftovers."""
        self._closing = True
        with trio.CancelScope(shield=True):
            # Shielded so the ordered, graceful shutdown also happens when we leave because an
            # outer scope was cancelled; bounded by the children's graces (plus slack), so a
            # stuck child cannot hang the parent.
            with trio.move_on_after(shutdown_bound(self._children, sequential=True) + 1.0):
                async with self._lock:
                    await stop_in_reverse(self._children)
        assert self._nursery is not None
        # Anything still running (bound exceeded, or a restart racing with us) is cancelled so
        # the nursery can close.
        self._nursery.cancel_scope.cancel()


@asynccontextmanager
async def open_supervisor(
    children: Sequence[ChildSpec],
    *,
    strategy: Strategy = Strategy.ONE_FOR_ONE,
    max_restarts: int = 3,
    max_seconds: float = 5.0,
    name: str = "supervisor",
) -> AsyncIterator[Supervisor]:
    """Start ``children`` in order and supervise them while the block runs.

    Each child is started with ``nursery.start``, so it is live (called ``started()``) before
    the next starts; if one fails to start, those already started are stopped and the error is
    raised. On exit (normal, error, or cancellation) children are stopped in reverse order, each
    with its graceful ``stop`` and bounded ``shutdown_grace``. If restarts exceed
    ``max_restarts`` within ``max_seconds`` (trio time), all children are stopped and
    SupervisorEscalation is raised out of the ``async with`` (the block is cancelled).
    """
    supervisor = Supervisor(children, strategy, max_restarts, max_seconds, name)
    try:
        async with trio.open_nursery() as nursery:
            supervisor._nursery = nursery
            async with supervisor._lock:
                await supervisor._start_all()
            try:
                yield supervisor
            finally:
                await supervisor._shutdown()
    except BaseExceptionGroup as group:
        reraise_unwrapped(group)


async def run_supervisor(
    children: Sequence[ChildSpec],
    *,
    strategy: Strategy = Strategy.ONE_FOR_ONE,
    max_restarts: int = 3,
    max_seconds: float = 5.0,
    name: str = "supervisor",
    task_status: trio.TaskStatus[Supervisor] = trio.TASK_STATUS_IGNORED,
) -> None:
    """``open_supervisor`` as a long-running child: ``task_status.started(supervisor)``, then
    supervise until cancelled (children stopped as on exit) or escalation (raised)."""
    async with open_supervisor(
        children,
        strategy=strategy,
        max_restarts=max_restarts,
        max_seconds=max_seconds,
        name=name,
    ) as supervisor:
        task_status.started(supervisor)
        await trio.sleep_forever()
