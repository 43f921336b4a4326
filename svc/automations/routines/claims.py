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

from typing import TYPE_CHECKING

import trio

from ...events import EventFilter, EventStream, StreamEnded
from ..claim_loop import ClaimLoop
from .claims_repository import RoutineClaimsRepository
from .state import TOPIC

if TYPE_CHECKING:
    from ...events import Event
    from .records import RoutineRun
    from .service import RoutineService


_SETTLED = frozenset({"run.completed", "run.failed"})


class RoutineClaims(ClaimLoop["RoutineRun"]):
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
            repo, service.pool, service.now_ms, replica_id=replica_id, lease_ms=lease_ms
        )
        self.service = service
        self.after_seq = after_seq

    async def _run_claimed(self, run: RoutineRun) -> None:
        if await self.service.adopt_claimed(run):
            await self.service._execute(run.run_id)

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
