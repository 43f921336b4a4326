"""The typed gateway to entity actors: one way to register, activate and ask them.

Sessions, MCP connectors, missions and goals are actors named ``<prefix><id>``
(``session/abc``, ``mcp/github``, ``mission/m1``, ``goal/g1``), activated on
first use from the store and supervised by their domain's dynamic supervisor.
Every domain asks them the same way::

    run = await engine.entities.ask(SESSION, session_id, StartRun(request))

* a message that subclasses :class:`Ask` ``[R]`` gives the reply type ``R``;
* an entity that does not exist raises the domain's own not-found error;
* an error the actor's handler raised with a code (:class:`~svc.errors.SvcError`)
  is re-raised as itself (the actor keeps running); anything else stays boxed;
* a message that arrives while an incarnation is stopping (a goal that just
  ended, a mission whose last instance finished) is sent to the next one.

Supervisors are looked up when an actor is spawned, never captured when the
factory is registered: after a supervision group restarts, its dynamic
supervisors are new objects, and a spawner bound to the old one would refuse
every new entity ("shutting down"). While a supervisor is being restarted,
spawning waits for its successor.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar, cast

import attrs
import trio

from actors import Actor, ActorDead, ActorError, ActorNotFound, ActorRef, ActorSystem
from supervisors import DynamicSupervisor

from .errors import SvcError

R = TypeVar("R")

DEFAULT_ASK_TIMEOUT = 30.0
# A message that meets a stopping incarnation is retried on the next one; a few
# tries cover a stop racing the message without looping on a crash-looping actor.
_ASK_ATTEMPTS = 3


class Ask(Generic[R]):
    """Base of a message that an entity actor answers with an ``R`` (for typing only)."""

    __slots__ = ()


@attrs.frozen
class EntityKind:
    """How the entities of one prefix are activated and reported missing."""

    prefix: str
    supervisor: str
    """The key of the dynamic supervisor that holds them (``sessions``, ``goals``...)."""
    not_found: Callable[[str], SvcError]
    """The domain's error for an id that names no entity."""
    timeout: float = DEFAULT_ASK_TIMEOUT


class Ownership(Protocol):
    """Who may run an entity's actor (svc/cluster's SharedCluster)."""

    async def check_owner(self, prefix: str, entity_id: str) -> None: ...


class Entities:
    """Entity actors by prefix and id (see the module docstring)."""

    def __init__(self, system: ActorSystem) -> None:
        self._system = system
        self._kinds: dict[str, EntityKind] = {}
        self._supervisors: dict[str, DynamicSupervisor] = {}
        self._available: dict[str, trio.Event] = {}
        self._restarted = trio.Event()
        self.starts: dict[str, int] = {}
        """How many times each entity supervisor has been started (1 = never restarted)."""
        self.ownership: Ownership | None = None
        """Replicas sharing a store (svc/cluster): the lease check before an ask."""

    # ------------------------------------------------------------ supervisors
    def supervisor_started(self, key: str, supervisor: DynamicSupervisor) -> None:
        """Called by the entity group each time it (re)starts the supervisor ``key``."""
        self._supervisors[key] = supervisor
        self._event(key).set()
        self.starts[key] = self.starts.get(key, 0) + 1
        self._restarted.set()
        self._restarted = trio.Event()

    def supervisor_stopped(self, key: str, supervisor: DynamicSupervisor) -> None:
        """Called as the supervisor ``key`` stops; spawns wait for its successor."""
        if self._supervisors.get(key) is supervisor:
            del self._supervisors[key]
            self._available[key] = trio.Event()

    def supervisor(self, key: str) -> DynamicSupervisor | None:
        return self._supervisors.get(key)

    async def wait_started(self, key: str, *, times: int) -> DynamicSupervisor:
        """Wait until the supervisor ``key`` has been started ``times`` times; return it."""
        while self.starts.get(key, 0) < times or key not in self._supervisors:
            await self._restarted.wait()
        return self._supervisors[key]

    def _event(self, key: str) -> trio.Event:
        return self._available.setdefault(key, trio.Event())

    async def _current_supervisor(self, key: str) -> DynamicSupervisor:
        while (sup := self._supervisors.get(key)) is None:
            await self._event(key).wait()
        return sup

    # ------------------------------------------------------------ registration
    def register(
        self,
        kind: EntityKind,
        factory: Callable[[str], Awaitable[Actor | None]],
    ) -> None:
        """Make ``<kind.prefix><id>`` activatable under the supervisor ``kind.supervisor``."""
        self._kinds[kind.prefix] = kind

        async def spawn(name: str, actor: Actor) -> ActorRef:
            supervisor = await self._current_supervisor(kind.supervisor)
            return await supervisor.actor_spawner(self._system)(name, actor)

        self._system.register_factory(kind.prefix, factory, spawner=spawn)

    # ------------------------------------------------------------ asking
    def lookup(self, prefix: str, entity_id: str) -> ActorRef | None:
        """The running actor, if any (never activates one)."""
        return self._system.lookup(prefix + entity_id)

    async def ref(self, prefix: str, entity_id: str) -> ActorRef:
        """The actor for ``entity_id``, activated from the store if it is not running."""
        try:
            return await self._system.get_or_spawn(prefix + entity_id)
        except ActorNotFound:
            raise self._kinds[prefix].not_found(entity_id) from None

    async def ask(
        self, prefix: str, entity_id: str, message: Ask[R], *, timeout: float | None = None
    ) -> R:
        """Send ``message`` and return the reply (see the module docstring for errors)."""
        kind = self._kinds[prefix]
        limit = kind.timeout if timeout is None else timeout
        if self.ownership is not None:
            # Replicas on one database (svc/cluster): the actor may run here only
            # while this replica holds its lease; else OwnedElsewhere names the
            # owner and the HTTP layer forwards the request there.
            await self.ownership.check_owner(prefix, entity_id)
        for attempt in range(_ASK_ATTEMPTS):
            ref = await self.ref(prefix, entity_id)
            try:
                return cast(R, await ask_ref(ref, message, timeout=limit))
            except ActorDead:
                if attempt == _ASK_ATTEMPTS - 1:
                    raise
                # The incarnation stopped before it read our message: wait until it
                # has fully ended, so get_or_spawn activates its successor rather
                # than finding the stopping one still registered.
                await ref.wait_stopped()
        raise AssertionError("unreachable")

    def tell(self, prefix: str, entity_id: str, message: object) -> bool:
        """Send without waiting to a running actor; False when none is running."""
        ref = self._system.lookup(prefix + entity_id)
        if ref is None:
            return False
        try:
            ref.tell(message)
        except ActorDead:
            return False
        return True


async def ask_ref(ref: ActorRef, message: object, *, timeout: float = DEFAULT_ASK_TIMEOUT) -> Any:
    """``ref.ask`` with an error that has a code re-raised as itself (the actor stays up).

    For actors that are not entities (a mission's instance, a supervisor-owned
    helper); entities go through :meth:`Entities.ask`.
    """
    try:
        return await ref.ask(message, timeout=timeout)
    except ActorError as exc:
        if isinstance(exc.error, SvcError):
            raise exc.error from None
        raise


__all__ = ["DEFAULT_ASK_TIMEOUT", "Ask", "Entities", "EntityKind", "ask_ref"]
