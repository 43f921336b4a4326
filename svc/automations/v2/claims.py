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

from typing import TYPE_CHECKING

import attrs
import trio

from ...events import EventFilter, EventStream, StreamEnded
from ..claim_loop import ClaimLoop
from .claims_repository import ClaimsRepository

if TYPE_CHECKING:
    from .records import AutomationV2Run
    from .service import V2Service


class RunClaims(ClaimLoop["AutomationV2Run"]):
    what = "automation runs"

    def __init__(
        self, service: V2Service, repo: ClaimsRepository, *, replica_id: str, lease_ms: int
    ) -> None:
        super().__init__(
            repo, service.pool, service.now_ms, replica_id=replica_id, lease_ms=lease_ms
        )
        self.service = service

    async def _run_claimed(self, run: AutomationV2Run) -> None:
        await self.service.adopt_claimed(self._resumable(run))
        await self.service._execute(run.run_id)

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
