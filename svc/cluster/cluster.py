"""Replicas of one engine sharing a PostgreSQL store: who is live, who owns what, who leads.

* **Liveness.** Each replica heartbeats into ``cluster_replicas`` every third
  of the lease time; the live replicas are those heard from within one lease
  time.
* **Ownership.** An entity actor (a session, a goal, a mission) runs on one
  replica at a time: the one holding its row in ``cluster_leases``. The entity
  gateway (:mod:`svc.entities`) claims the lease before it activates an actor:
  a free or expired lease is taken (the actor rehydrates from the store), one
  held elsewhere raises :class:`OwnedElsewhere`, which the HTTP layer answers
  by forwarding the request to the owner's internal URL
  (:mod:`svc.http.forward`). Heartbeats renew every lease the replica holds,
  so a replica killed with ``kill -9`` loses them one lease time later and its
  entities come back on whichever replica is asked for them next. MCP
  connectors are not leased: each replica keeps its own connections, which hold
  nothing the store must agree on.
* **Leadership.** Work that must run once across the replicas (the scheduler)
  runs inside :meth:`Cluster.lead`, on the replica holding a PostgreSQL
  advisory lock; when it dies, another takes the lock within a poll interval.

An SQLite store is one engine's alone: :class:`LocalCluster` owns everything
and always leads.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

import trio

from ..clock import Clock
from ..errors import PersistenceFailed, SvcError
from ..store import Store
from .repository import ClusterRepository, Owner

if TYPE_CHECKING:
    from actors import ActorSystem

    from ..entities import Entities
    from ..store.postgresql import PgStore

log = logging.getLogger("svc.cluster")

LEASED_PREFIXES = frozenset({"session/", "goal/", "team/"})
"""Entity kinds whose actors run on one replica at a time (connectors do not: see above)."""

SCHEDULER_LOCK_KEY = 0x73766373
"""The advisory lock key of scheduler leadership ("svcs")."""

FORWARDED_HEADER = "X-Svc-Forwarded-By"
"""Set on a request one replica forwards to another (never forwarded twice)."""


class OwnedElsewhere(SvcError):
    """Another live replica owns the entity: the request belongs there."""

    code = "ENTITY_OWNED_ELSEWHERE"
    status = 503
    retryable = True

    def __init__(self, name: str, owner: Owner) -> None:
        super().__init__(
            f"{name} runs on replica {owner.replica_id}", retryAfterMs=max(0, owner.remaining_ms)
        )
        self.owner = owner


def new_replica_id() -> str:
    """Host, process and a random part: unique even for a restart on the same pid."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class LocalCluster:
    """One engine alone on its store (SQLite): it owns everything and leads."""

    shared = False
    replica_id: str | None = None
    leading = True

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def attach(self, entities: Entities, actors: ActorSystem, *, url: str | None) -> None:
        """Nothing to check: every entity is ours."""

    async def live_replicas(self) -> int:
        return 1

    async def check_owner(self, prefix: str, entity_id: str) -> None:
        """Everything is ours."""

    async def lead(self, body: Callable[[], Awaitable[object]]) -> None:
        await body()

    def gate(self, run: Start, *, on_lead: Callable[[], Awaitable[object]]) -> Start:
        """``run`` itself: alone, this engine always leads."""
        return run


Start = Callable[..., Awaitable[object]]
"""A supervised child's start function (takes ``task_status``)."""


class SharedCluster:
    """One replica among those sharing a PostgreSQL store (see the module docstring)."""

    shared = True
    kind = "postgresql"

    def __init__(self, store: Store, clock: Clock, *, lease_ms: int, replica_id: str) -> None:
        self._store = store
        self._repo = ClusterRepository(store)
        self._clock = clock
        self.lease_ms = lease_ms
        self.replica_id = replica_id
        self.url: str | None = None
        self._actors: ActorSystem | None = None
        self.leading = False
        self._leading_changed = trio.Event()
        self._beat_now = trio.Event()
        self._owned: dict[tuple[str, str], int] = {}
        """Leases held, with when (engine clock) this replica stops trusting its own copy."""

    def attach(self, entities: Entities, actors: ActorSystem, *, url: str | None) -> None:
        """Check leases on every entity ask from now on, and advertise ``url``, the
        internal URL the other replicas forward to (sent at once)."""
        entities.ownership = self
        self._actors = actors
        self.url = url
        self._beat_now.set()  # the others may forward here as soon as possible

    async def live_replicas(self) -> int:
        return await self._repo.live_replicas(self.lease_ms)

    async def check_owner(self, prefix: str, entity_id: str) -> None:
        """Hold the lease of ``prefix + entity_id`` or raise :class:`OwnedElsewhere`."""
        if prefix not in LEASED_PREFIXES:
            return
        key = (prefix, entity_id)
        now = self._clock.now_ms()
        # Trusted for half a lease after its last renewal: the database's copy
        # runs a full lease, so ours can never outlive it.
        if self._owned.get(key, 0) > now:
            return
        owner = await self._repo.claim(prefix, entity_id, self.replica_id, self.lease_ms)
        if owner is not None:
            self._owned.pop(key, None)
            raise OwnedElsewhere(prefix + entity_id, owner)
        self._owned[key] = now + self.lease_ms // 2

    async def heartbeat(self) -> None:
        """Say this replica is live and renew its leases (one transaction)."""
        now = self._clock.now_ms()
        held = await self._repo.heartbeat(self.replica_id, self.url, self.lease_ms)
        lost = set(self._owned) - held
        if lost:
            # Another replica took them over (this one was late renewing): their
            # actors here hold state that is no longer the truth; they stop, and
            # requests for them go to the new owner.
            log.warning("leases lost to other replicas", extra={"count": len(lost)})
            for prefix, entity_id in lost:
                if self._actors is not None:
                    self._actors.stop(prefix + entity_id)
        self._owned = {key: now + self.lease_ms // 2 for key in held}

    async def run_heartbeats(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        await self.heartbeat()
        task_status.started()
        while True:
            with trio.move_on_after(self.lease_ms / 3000):
                await self._beat_now.wait()
            self._beat_now = trio.Event()
            try:
                await self.heartbeat()
            except PersistenceFailed:
                # Retried at the next beat; leases not renewed in time simply
                # expire (our own copy stops being trusted before they do).
                log.warning("heartbeat failed", exc_info=True)

    async def lead(self, body: Callable[[], Awaitable[object]]) -> None:
        """Run ``body()`` while this replica holds the scheduler's advisory lock."""

        def on_lead(leading: bool) -> None:
            self.leading = leading
            log.info("scheduler leadership " + ("taken" if leading else "released"))
            changed, self._leading_changed = self._leading_changed, trio.Event()
            changed.set()

        pg = cast("PgStore", self._store)
        await pg.lead(
            SCHEDULER_LOCK_KEY, body, poll_s=min(1.0, self.lease_ms / 3000), on_lead=on_lead
        )

    async def until_leading(self) -> None:
        """Return once this replica holds the scheduler's lock (for tests and tools)."""
        while not self.leading:
            await self._leading_changed.wait()

    def gate(self, run: Start, *, on_lead: Callable[[], Awaitable[object]]) -> Start:
        """A child start function that runs ``run`` only while this replica leads.

        It reports started at once (a standby replica must not hold up the
        engine's start), waits for the lock, calls ``on_lead()`` (catch up with
        what the previous leader left in the store), then runs ``run``. Losing
        the lock raises, so the supervisor restarts the child, which waits again.
        """

        async def start(*, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
            task_status.started(None)

            async def body() -> None:
                await on_lead()
                await run()

            await self.lead(body)

        return start

    async def leave(self) -> None:
        await self._repo.leave(self.replica_id)


Cluster = LocalCluster | SharedCluster


@asynccontextmanager
async def open_cluster(store: Store, clock: Clock, settings: Any) -> AsyncIterator[Cluster]:
    """This engine's place among the replicas of its store, for the block's duration.

    On PostgreSQL it heartbeats until the block ends, then gives its leases up
    so the other replicas take its entities over at once.
    """
    if store.kind != "postgresql":
        yield LocalCluster(store.kind)
        return
    cluster = SharedCluster(
        store, clock, lease_ms=settings.cluster_lease_ms, replica_id=new_replica_id()
    )
    cluster.url = settings.replica_url
    async with trio.open_nursery() as nursery:
        await nursery.start(cluster.run_heartbeats)
        try:
            yield cluster
        finally:
            nursery.cancel_scope.cancel()
            # Shielded and bounded: a stopping replica hands its leases over
            # now rather than make the others wait out a lease time.
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                try:
                    await cluster.leave()
                except PersistenceFailed:
                    log.warning("could not give the leases up; they expire", exc_info=True)


__all__ = [
    "FORWARDED_HEADER",
    "LEASED_PREFIXES",
    "SCHEDULER_LOCK_KEY",
    "Cluster",
    "LocalCluster",
    "OwnedElsewhere",
    "SharedCluster",
    "new_replica_id",
    "open_cluster",
]
