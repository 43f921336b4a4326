"""Replicas on one store: each runs its share of the queued routine runs, one per routine at once.

The design of the automation v2 claims (:mod:`svc.automations.v2.claims`), with
the routine's lane kept across replicas. Alone on its store an engine runs a
routine's queued runs through the routine's lane (:mod:`.runs`). Replicas
sharing a PostgreSQL store instead leave a queued run in the store and wake
their :class:`RoutineClaims`; every replica's claimer takes runs with
:meth:`RoutineClaimsRepository.claim` (``FOR UPDATE SKIP LOCKED``), up to its
pool's free capacity, never a run of a routine that has a run claimed anywhere.

* Woken by routine run events from any replica (a run queued, approved,
  resumed or ended elsewhere; the shared log fans them out), by a run ending
  here, and every third of a lease time (claims that expired).
* Renews this replica's claims every third of a lease time; a replica killed
  with ``kill -9`` stops renewing, and its runs are claimed by the others once
  their claims expire (a run left ``running`` cannot resume mid-session: the
  replica that claims it ends it failed).
* Releases a claim when the run leaves this replica (ended, paused, or the
  replica stopping: then the run is claimable at once).
* A run paused through another replica (``run.step`` ``paused``) stops here.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

import trio

from ...errors import PersistenceFailed
from ...events import EventFilter, EventStream, StreamEnded
from ..claim_loop import ClaimLoop
from .claims_repository import RoutineClaimsRepository
from .state import TOPIC

if TYPE_CHECKING:
    from ...events import Event
    from .records import RoutineRun
    from .service import RoutineService

log = logging.getLogger("svc.automations")

_SETTLED = frozenset({"run.completed", "run.failed"})


class RoutineClaims(ClaimLoop):
    what = "routine runs"

    def __init__(
        self,
        service: RoutineService,
        repo: RoutineClaimsRepository,
        *,
        replica_id: str,
        lease_ms: int,
        after_seq: int | None = None,
    ) -> None:
        """``after_seq``: the seq delivered here when the runs were loaded (events from there on
        keep this replica's memory of other replicas' runs in step)."""
        super().__init__(
            replica_id=replica_id, lease_ms=lease_ms, limit=int(service.pool.limiter.total_tokens)
        )
        self.service = service
        self.after_seq = after_seq
        self.repo = repo

    async def _claim(self) -> None:
        free = self.limit - len(self.held)
        if free <= 0:
            return
        runs = await self.repo.claim(
            self.replica_id, now_ms=self.service.now_ms(), lease_ms=self.lease_ms, limit=free
        )
        # Held from here on: no checkpoint before each is in `held` and submitted.
        for run in runs:
            self.held.add(run.run_id)
            self.claimed_total += 1
            self.service.pool.submit(functools.partial(self._execute, run))

    async def _execute(self, run: RoutineRun) -> None:
        try:
            if await self.service.adopt_claimed(run):
                await self.service._execute(run.run_id)
        finally:
            # Shielded: a claim left behind would hold the routine's lane until it expired.
            with trio.CancelScope(shield=True):
                try:
                    await self.repo.release(self.replica_id, run.run_id)
                except PersistenceFailed:
                    log.warning("could not release the claim of %s", run.run_id, exc_info=True)
            self.held.discard(run.run_id)
            self.wake()  # a slot is free, and the routine's next run is claimable

    async def _renew(self) -> None:
        while True:
            await trio.sleep(self.lease_ms / 3000)
            if not self.held:
                continue
            try:
                await self.repo.renew(
                    self.replica_id, expires_at_ms=self.service.now_ms() + self.lease_ms
                )
            except PersistenceFailed:
                # Retried at the next beat; a claim not renewed in time expires.
                log.warning("renewing routine run claims failed", exc_info=True)

    async def _follow(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        events = self.service.engine.events
        # Only the shared log tells this replica's events apart (claims run on nothing else).
        mine = getattr(events, "published_here", lambda event: False)
        with EventStream(events, EventFilter(topic=TOPIC), after_seq=self.after_seq) as stream:
            task_status.started()
            while True:
                try:
                    batch = await stream.receive()
                except StreamEnded:
                    return
                for event in batch:
                    if not mine(event):
                        self._observe(event)
                self.after_seq = stream.cursor  # a restarted child goes on from here
                self.wake()

    def _observe(self, event: Event) -> None:
        """Another replica's routine run event: keep this replica's memory of the run in step."""
        run_id = event.properties.get("runID")
        if not isinstance(run_id, str):
            return
        if event.type in _SETTLED:
            self.service.forget_settled(run_id)
        elif event.type == "run.step" and event.properties.get("step") == "paused":
            reason = event.properties.get("reason")
            self.service.paused_elsewhere(run_id, str(reason or "paused"))


__all__ = ["RoutineClaims"]
