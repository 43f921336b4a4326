"""Dynamic supervisors: many children of one kind, added and removed at run time."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import trio

from actors import Actor, ActorNotFound, ActorRef, ActorSystem

from ._actor_child import MakeActor, actor_child_spec
from ._child import Child, run_child, should_restart, shutdown_bound, stop_child, stop_together
from ._errors import SupervisorEscalation
from ._groups import reraise_unwrapped
from ._intensity import RestartIntensity
from ._spec import ChildInfo, ChildSpec, Restart

logger = logging.getLogger("supervisors")


class DynamicSupervisor:
    """Supervises children started at run time (sessions, connectors, agent instances, goals).

    Strategy is one-for-one: children are independent, so starts, restarts and terminations of
    different children run concurrently (each child has its own lock); one slow ``started()``
    never holds up another child. The restart intensity counts restarts across all children;
    exceeding it stops every child and raises SupervisorEscalation to the parent.
    """

    def __init__(self, name: str, max_restarts: int, max_seconds: float) -> None:
        self.name = name
        self.restart_count = 0
        """Restarts performed, across all children."""
        self._children: dict[str, Child] = {}
        self._intensity = RestartIntensity(max_restarts, max_seconds)
        self._closing = False
        self._nursery: trio.Nursery | None = None

    def __repr__(self) -> str:
        return f"<DynamicSupervisor {self.name!r} children={len(self._children)}>"

    @property
    def count(self) -> int:
        """Number of children (running or being restarted)."""
        return len(self._children)

    def which_children(self) -> list[ChildInfo]:
        """A snapshot of every child, in the order they were started."""
        return [child.info() for child in self._children.values()]

    async def start_child(self, spec: ChildSpec) -> object:
        """Start a child; return the value it passed to ``task_status.started()``.

        ValueError if a child with ``spec.id`` exists. If it fails before calling
        ``started()``, that error is raised here and the child is forgotten. If the caller is
        cancelled meanwhile, the start is cancelled too.
        """
        if self._closing:
            raise RuntimeError(f"dynamic supervisor {self.name!r} is shutting down")
        if spec.id in self._children:
            raise ValueError(f"dynamic supervisor {self.name!r} already has a child {spec.id!r}")
        assert self._nursery is not None
        child = self._children[spec.id] = Child(spec)
        try:
            async with child.lock:
                return await self._nursery.start(run_child, child, self._child_exited)
        except BaseException as error:
            if self._children.get(spec.id) is child:
                del self._children[spec.id]
            if self._closing and isinstance(error, Exception):
                # Shutdown overtook the start (and cancelled it): say so, rather than trio's
                # "child exited without calling task_status.started()".
                raise RuntimeError(f"dynamic supervisor {self.name!r} is shutting down") from error
            raise

    async def terminate_child(self, child_id: str) -> None:
        """Stop a child for good: ``spec.stop()``, then cancel after ``shutdown_grace``.

        It is not restarted. No-op for an unknown id. If the caller is cancelled while waiting,
        the child is cancelled at once rather than left running unsupervised.
        """
        child = self._children.pop(child_id, None)
        if child is None:
            await trio.lowlevel.checkpoint()
            return
        child.removed = True
        try:
            async with child.lock:
                await stop_child(child)
        finally:
            if not child.done.is_set() and child.scope is not None:
                # Our caller was cancelled mid-way: the child is already removed from our
                # books, so it must not keep running unsupervised; cancel it now.
                child.scope.cancel()

    async def start_actor(
        self,
        system: ActorSystem,
        name: str,
        make_actor: MakeActor,
        *,
        restart: Restart = Restart.TRANSIENT,
    ) -> ActorRef:
        """Run an actor as a child (id = name, graceful stop = ``system.stop(name)``).

        Each incarnation runs a FRESH actor from ``make_actor()`` (sync or async), so a crash
        restarts it with rehydrated state, under the restart intensity. Returns the first
        incarnation's ref; later ones are found with ``system.lookup(name)``.
        """
        value = await self.start_child(actor_child_spec(system, name, make_actor, restart=restart))
        if not isinstance(value, ActorRef):
            # make_actor() produced nothing: there is no actor to supervise.
            await self.terminate_child(name)
            raise ActorNotFound(name)
        return value

    def actor_spawner(
        self, system: ActorSystem, *, restart: Restart = Restart.TRANSIENT
    ) -> Callable[[str, Actor], Awaitable[ActorRef]]:
        """Adapter for ``system.register_factory(prefix, factory, spawner=...)``.

        The first incarnation runs the actor the factory just built; a restart calls the
        system's factory for that name again (``system.factory_for(name)``) to rehydrate. If the
        factory then returns None, the entity is gone and the child ends (transient: dropped).
        If the name is one of our children between incarnations (a restart in progress), the
        spawner waits for that restart and returns the new incarnation instead of a duplicate.
        """

        async def spawn(name: str, actor: Actor) -> ActorRef:
            while (child := self._children.get(name)) is not None:
                async with child.lock:
                    pass  # wait for the start/restart holding it
                ref = system.lookup(name)
                if ref is not None:
                    return ref
                if self._children.get(name) is child:
                    raise ActorNotFound(name)
            handed = [actor]

            async def make() -> Actor | None:
                if handed:
                    return handed.pop()
                factory = system.factory_for(name)
                return None if factory is None else await factory(name)

            return await self.start_actor(system, name, make, restart=restart)

        return spawn

    # -- failures ------------------------------------------------------------------------

    async def _child_exited(
        self, child: Child, generation: int, error: BaseException | None
    ) -> None:
        """Runs in the task of the child that ended (not stopped by us): restart or drop it."""
        async with child.lock:
            if child.removed or self._closing or generation != child.generation:
                return
            if not should_restart(child.spec.restart, error):
                logger.info(
                    "supervisor %r: child %r ended; not restarted", self.name, child.spec.id
                )
                self._forget(child)
                return
            if error is not None:
                logger.warning(
                    "supervisor %r: child %r failed", self.name, child.spec.id, exc_info=error
                )
            while True:
                if not self._intensity.allow_restart():
                    await self._escalate(child, error)
                self.restart_count += 1
                child.restarts += 1
                child.stopping = False
                assert self._nursery is not None
                try:
                    await self._nursery.start(run_child, child, self._child_exited)
                    return
                except Exception as exc:
                    if child.removed or self._closing:
                        return
                    # Failing to start again is failing again; it counts against the intensity.
                    error = exc
                    logger.warning(
                        "supervisor %r: restarting %r failed",
                        self.name,
                        child.spec.id,
                        exc_info=exc,
                    )

    def _forget(self, child: Child) -> None:
        if self._children.get(child.spec.id) is child:
            del self._children[child.spec.id]

    async def _escalate(self, failed: Child, error: BaseException | None) -> None:
        self._closing = True
        logger.error(
            "supervisor %r: restart intensity exceeded (%d in %ss) by %r; escalating",
            self.name,
            self._intensity.max_restarts,
            self._intensity.max_seconds,
            failed.spec.id,
        )
        # Escalation: stop every child gracefully first, then raise into our nursery; that
        # cancels the supervisor's block and surfaces as SupervisorEscalation to the parent,
        # which treats it as a failure of this supervisor.
        await stop_together(list(self._children.values()))
        raise SupervisorEscalation(self.name, failed.spec.id, error) from error

    # -- shutdown ------------------------------------------------------------------------

    async def _shutdown(self) -> None:
        """Stop all children concurrently, each with its grace; then cancel leftovers."""
        self._closing = True
        children = list(self._children.values())
        with trio.CancelScope(shield=True):
            # Shielded so children get their graceful stop also when we leave because an outer
            # scope was cancelled; bounded by the longest grace (plus slack): they stop together.
            with trio.move_on_after(shutdown_bound(children, sequential=False) + 1.0):
                await stop_together(children)
        assert self._nursery is not None
        # Whatever is left (a start racing with shutdown, a child past its bound) is cancelled,
        # so the nursery can close.
        self._nursery.cancel_scope.cancel()


@asynccontextmanager
async def open_dynamic_supervisor(
    *, name: str = "dynamic", max_restarts: int = 3, max_seconds: float = 5.0
) -> AsyncIterator[DynamicSupervisor]:
    """Open a dynamic supervisor (no children yet) for the duration of the block.

    On exit all children are stopped together, each with its graceful stop and bounded grace.
    If restarts exceed ``max_restarts`` within ``max_seconds`` (trio time), all children are
    stopped and SupervisorEscalation is raised out of the ``async with``.
    """
    supervisor = DynamicSupervisor(name, max_restarts, max_seconds)
    try:
        async with trio.open_nursery() as nursery:
            supervisor._nursery = nursery
            try:
                yield supervisor
            finally:
                await supervisor._shutdown()
    except BaseExceptionGroup as group:
        reraise_unwrapped(group)


async def run_dynamic_supervisor(
    *,
    name: str = "dynamic",
    max_restarts: int = 3,
    max_seconds: float = 5.0,
    task_status: trio.TaskStatus[DynamicSupervisor] = trio.TASK_STATUS_IGNORED,
) -> None:
    """``open_dynamic_supervisor`` as a long-running child: ``task_status.started(supervisor)``,
    then supervise until cancelled or escalation (raised, so the parent sees a failure)."""
    async with open_dynamic_supervisor(
        name=name, max_restarts=max_restarts, max_seconds=max_seconds
    ) as supervisor:
        task_status.started(supervisor)
        await trio.sleep_forever()
