"""ActorSystem: names, spawning, lookup, watches and lazy activation; open_actor_system()."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from ._activation import Activation, Factories, Factory, Spawner
from ._actor import Actor
from ._errors import ActorError, ActorNotFound, NameTaken, SystemClosed
from ._groups import reraise_unwrapped
from ._incarnation import run_incarnation
from ._records import ActorExit
from ._ref import ActorRef
from ._starting import DETACHED, Starting
from ._watch import Watch

logger = logging.getLogger("actors")


class ActorSystem:
    """Registry and runner of actors. Create it with ``open_actor_system()``.

    Names are unique among live actors. A name is released when its actor has fully ended
    (after ``stopped()``), and can then be reused by a new incarnation with a new ref.
    """

    def __init__(self, nursery: trio.Nursery, default_mailbox_size: int) -> None:
        self._nursery = nursery
        self._default_mailbox_size = default_mailbox_size
        self._actors: dict[str, ActorRef] = {}
        self._factories = Factories()
        self._activations: dict[str, Activation] = {}
        self._closed = False

    def __repr__(self) -> str:
        return f"<ActorSystem actors={self.actor_count} closed={self._closed}>"

    # -- running actors ------------------------------------------------------------------

    async def spawn(self, name: str, actor: Actor, *, mailbox_size: int | None = None) -> ActorRef:
        """Start an unsupervised actor in the system's nursery; return once ``started()`` returned.

        NameTaken if a live actor has ``name`` (if a previous incarnation is still cleaning up, we
        wait for it first). If ``started()`` raises, the crash is logged and raised here as
        ActorError. Later crashes are logged and reported to watchers, never propagated.
        If the caller is cancelled while ``started()`` runs, the actor is stopped.

        For an actor that does not override ``started()`` there is nothing to wait for, so
        spawn() returns at once without a schedule point (it is still a cancellation point);
        messages sent meanwhile wait in the mailbox.
        """
        if type(actor).started is Actor.started:
            # Nothing to wait for: the base started() does nothing and cannot fail, and the
            # mailbox exists from registration on, so messages queue until the actor's task runs.
            # Not waiting saves a scheduler round per spawn (10,000 spawns in well under a
            # second). Still a cancellation point (before registering, so a cancelled spawn
            # leaves no name behind), just not a schedule point.
            await trio.lowlevel.checkpoint_if_cancelled()
            ref, receive = await self._register(name, actor, mailbox_size)
            self._nursery.start_soon(run_incarnation, self, ref, receive, actor, DETACHED)
            return ref
        ref, receive = await self._register(name, actor, mailbox_size)
        starting = Starting(ref)
        self._nursery.start_soon(run_incarnation, self, ref, receive, actor, starting)
        try:
            return await starting.wait()
        except ActorError as error:
            logger.error("actor %r crashed in started()", name, exc_info=error.error)
            raise

    async def run(
        self,
        name: str,
        actor: Actor,
        *,
        mailbox_size: int | None = None,
        task_status: trio.TaskStatus[ActorRef] = trio.TASK_STATUS_IGNORED,
    ) -> ActorExit:
        """Run an actor in the caller's task (``ref = await nursery.start(system.run, name, a)``).

        Registers the name, awaits ``started()``, calls ``task_status.started(ref)``, serves the
        mailbox until stopped, cleans up. Returns the ActorExit of a normal/stopped end; re-raises
        the error of a crash (after cleanup and watchers). When cancelled from outside it runs the
        same cleanup (``stopped()`` shielded, bounded by ``stop_grace``) and the Cancelled
        propagates.
        """
        ref, receive = await self._register(name, actor, mailbox_size)
        return await run_incarnation(self, ref, receive, actor, task_status)

    def lookup(self, name: str) -> ActorRef | None:
        """The live ref registered under ``name``, else None (also while it is stopping)."""
        ref = self._actors.get(name)
        if ref is not None and ref._alive:
            return ref
        return None

    def names(self, prefix: str = "") -> list[str]:
        """Names of the live actors starting with ``prefix``, in registration order."""
        return [n for n, ref in self._actors.items() if ref._alive and n.startswith(prefix)]

    @property
    def actor_count(self) -> int:
        """Number of live actors (stopping ones excluded)."""
        return sum(1 for ref in self._actors.values() if ref._alive)

    def stop(self, name: str) -> None:
        """Stop the live actor ``name`` (see ActorRef.stop); no-op if none is running."""
        ref = self._actors.get(name)
        if ref is not None:
            ref.stop()

    def watch(self, target: str | ActorRef, *, notify: ActorRef | None = None) -> Watch:
        """Watch the end of ``target`` (a ref, or the incarnation currently under that name).

        ``Watch.wait()`` returns the ActorExit; ``notify``, if given, is told Terminated then.
        An unknown name resolves at once with reason ``"stopped"``; an ended ref resolves at
        once with its recorded exit.
        """
        ref: ActorRef | None
        if isinstance(target, ActorRef):
            name, ref = target.name, target
        else:
            name, ref = target, self._actors.get(target)
        watch = Watch(name, notify)
        if ref is None:
            watch._resolve(ActorExit(name, "stopped", None))
        elif ref._exit is not None:
            watch._resolve(ref._exit)
        else:
            ref._add_watch(watch)
        return watch

    # -- lazy activation -----------------------------------------------------------------

    def register_factory(
        self, prefix: str, factory: Factory, *, spawner: Spawner | None = None
    ) -> None:
        """Make names starting with ``prefix`` activatable by get_or_spawn().

        ``factory(name)`` builds the actor (e.g. rehydrating it from a store) or returns None if
        no such entity exists. ``spawner(name, actor)`` starts it (default: ``self.spawn``), e.g.
        under a DynamicSupervisor. The longest matching prefix wins; re-registering replaces.
        """
        self._factories.register(prefix, factory, spawner)

    def factory_for(self, name: str) -> Factory | None:
        """The factory that would activate ``name`` (longest matching prefix), else None."""
        registration = self._factories.match(name)
        return None if registration is None else registration.factory

    async def get_or_spawn(self, name: str) -> ActorRef:
        """The live ref for ``name``, activating it through its factory if it is not running.

        Concurrent calls for one name activate it once; the others wait for that result. If a
        previous incarnation is still cleaning up, activation waits for it first, so rehydration
        sees the state it persisted. ActorNotFound if no factory matches or it returns None.
        If the activating caller is cancelled, a waiting caller takes over.
        """
        await trio.lowlevel.checkpoint()
        while True:
            ref = self.lookup(name)
            if ref is not None:
                return ref
            pending = self._activations.get(name)
            if pending is None:
                return await self._activate(name)
            ref = await pending.result()
            if ref is not None and ref._alive:
                return ref

    async def _activate(self, name: str) -> ActorRef:
        registration = self._factories.match(name)
        if registration is None:
            raise ActorNotFound(name)
        activation = self._activations[name] = Activation(name)
        try:
            await self._wait_released(name)
            actor = await registration.factory(name)
            if actor is None:
                raise ActorNotFound(name)
            spawner = registration.spawner or self.spawn
            try:
                ref = await spawner(name, actor)
            except NameTaken:
                # Somebody started it directly meanwhile: that live actor is the answer.
                live = self.lookup(name)
                if live is None:
                    raise
                ref = live
            activation.ref = ref
            return ref
        except BaseException as error:
            activation.error = error
            raise
        finally:
            del self._activations[name]
            activation.done.set()

    # -- kernel-internal -----------------------------------------------------------------

    async def _wait_released(self, name: str) -> None:
        """Wait while a previous incarnation of ``name`` is still cleaning up; NameTaken if live."""
        while (current := self._actors.get(name)) is not None:
            if current._alive:
                raise NameTaken(name)
            # It is running stopped(): the new incarnation must not overlap that cleanup
            # (both could be writing the same persisted state).
            await current.wait_stopped()

    async def _register(
        self, name: str, actor: Actor, mailbox_size: int | None
    ) -> tuple[ActorRef, trio.MemoryReceiveChannel[object]]:
        if name in self._actors:
            await self._wait_released(name)
        if self._closed:
            raise SystemClosed("the actor system is closed")
        if mailbox_size is None:
            mailbox_size = _class_mailbox_size(type(actor)) or self._default_mailbox_size
        send, receive = trio.open_memory_channel[object](mailbox_size)
        ref = ActorRef(name, send)
        self._actors[name] = ref
        actor.name = name
        actor.ref = ref
        actor.system = self
        return ref, receive

    def _retire(self, ref: ActorRef, exit: ActorExit) -> None:
        """Release the name (if this incarnation still holds it), then notify waiters/watchers."""
        if self._actors.get(ref.name) is ref:
            del self._actors[ref.name]
        ref._finish(exit)

    def _close(self) -> None:
        """Refuse new actors and stop every live one (their cleanup runs in their own tasks)."""
        self._closed = True
        for ref in list(self._actors.values()):
            ref.stop()


_mailbox_sizes: dict[type[Actor], int | None] = {}


def _class_mailbox_size(cls: type[Actor]) -> int | None:
    """The mailbox_size a subclass of Actor set, or None if it kept the base default."""
    if cls not in _mailbox_sizes:
        _mailbox_sizes[cls] = _declared_mailbox_size(cls)
    return _mailbox_sizes[cls]


def _declared_mailbox_size(cls: type[Actor]) -> int | None:
    for klass in cls.__mro__:
        if klass is Actor:
            return None
        size = klass.__dict__.get("mailbox_size")
        if size is not None:
            return int(size)
    return None


@asynccontextmanager
async def open_actor_system(*, default_mailbox_size: int = 1024) -> AsyncIterator[ActorSystem]:
    """Open an actor system; spawned actors live in its nursery.

    On exit (normal, error or cancellation) every actor still running is stopped, their
    ``stopped()`` hooks run (each bounded by its ``stop_grace``), and no task of the system is
    left running. New actors are refused from then on (SystemClosed).
    """
    try:
        async with trio.open_nursery() as nursery:
            system = ActorSystem(nursery, default_mailbox_size)
            try:
                yield system
            finally:
                # Stopping is synchronous (cancel scopes); the nursery then waits for each
                # actor's bounded cleanup.
                system._close()
    except BaseExceptionGroup as group:
        reraise_unwrapped(group)
