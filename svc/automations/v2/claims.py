"""Replicas on one store: each runs its share of the queued automation v2 runs.

Alone on its store an engine executes the runs it queues (``V2Runs._submit``
hands them to its pool). Replicas sharing a PostgreSQL store instead leave a
queued run in the store and wake their :class:`RunClaims`; every replica's
claimer takes runs with :meth:`ClaimsRepository.claim` (``FOR UPDATE SKIP
LOCKED``), up to its pool's free capacity, so the runs spread over the
replicas and each runs exactly once, on the replica that claimed it.

* Woken by ``automation.v2.run.created`` events from any replica (the shared
  log fans them out), by a run ending here (capacity freed), and every third
  of a lease time (claims that expired, runs approved elsewhere).
* Renews this replica's claims every third of a lease time; a replica killed
  with ``kill -9`` stops renewing, and its runs are claimed by the others once
  their claims expire, resuming from their completed nodes.
* Releases a claim when the run leaves this replica (ended, or waiting for an
  approval that may be given on another replica).
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

import attrs
import trio

from ...errors import PersistenceFailed
from ...events import EventFilter, EventStream, StreamEnded
from ..claim_loop import ClaimLoop
from .claims_repository import ClaimsRepository

if TYPE_CHECKING:
    from .records import AutomationV2Run
    from .service import V2Service

log = logging.getLogger("svc.automations")


class RunClaims(ClaimLoop):
    what = "automation runs"

    def __init__(
        self, service: V2Service, repo: ClaimsRepository, *, replica_id: str, lease_ms: int
    ) -> None:
        super().__init__(
            replica_id=replica_id, lease_ms=lease_ms, limit=int(service.pool.limiter.total_tokens)
        )
        self.service = service
        self.repo = repo

    async def _claim(self) -> None:
        free = self.limit - len(self.held)
        if free <= 0:
            return
        now = self.service.now_ms()
        runs = await self.repo.claim(
            self.replica_id, now_ms=now, lease_ms=self.lease_ms, limit=free
        )
        # Held from here on: no checkpoint before each is in `held` and submitted.
        for run in runs:
            self.held.add(run.run_id)
            self.claimed_total += 1
            self.service.pool.submit(functools.partial(self._execute, run))

    async def _execute(self, run: AutomationV2Run) -> None:
        try:
            await self.service.adopt_claimed(self._resumable(run))
            await self.service._execute(run.run_id)
        finally:
            # Shielded: a claim left behind would hold the run until it expired.
            with trio.CancelScope(shield=True):
                try:
                    await self.repo.release(self.replica_id, run.run_id)
                except PersistenceFailed:
                    log.warning("could not release the claim of %s", run.run_id, exc_info=True)
            self.held.discard(run.run_id)
            self.wake()  # a slot is free

    def _resumable(self, run: AutomationV2Run) -> AutomationV2Run:
        if run.status != "running":
            return run
        # Its replica died while it ran: resume from the nodes it completed.
        nodes = {
            k: (attrs.evolve(n, status="pending") if n.status == "running" else n)
            for k, n in run.nodes.items()
        }
        return attrs.evolve(
            run,
            status="queued",
            nodes=nodes,
            updated_at_ms=self.service.now_ms(),
            detail="resumed on another replica",
        )

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
                log.warning("renewing run claims failed", exc_info=True)

    async def _follow(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        log_ = self.service.engine.events
        created = EventFilter(
            topic="automations/v2", types=frozenset({"automation.v2.run.created"})
        )
        with EventStream(log_, created) as stream:
            task_status.started()
            while True:
                try:
                    await stream.receive()
                except StreamEnded:
                    return
                self.wake()


__all__ = ["RunClaims"]
