"""How the automations domain plugs into the engine (see ``svc/component.py``).

* ``setup``: build :class:`AutomationService` (``engine.automations``), load
  definitions and unsettled runs from the store.
* ``children``: the run pools, the fire journal's materializer and the
  scheduler, supervised one-for-one under the engine's ``services`` supervisor
  (a crashed scheduler restarts and reloads its heap from the services' state;
  a crashed materializer retries the row it was on).
* ``started``: queued runs left by a previous process start executing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from .service import AutomationService

if TYPE_CHECKING:
    from ..engine import Engine
    from .replica_sync import ScheduleSync


MATERIALIZER = "automations-fire-journal"
"""The child that turns journaled fires into runs."""


class AutomationsComponent(Component):
    name = "automations"

    def __init__(self) -> None:
        self.service: AutomationService | None = None
        self.sync: ScheduleSync | None = None
        """Replicas on one store: definitions edited on the others (svc/cluster)."""

    async def setup(self, engine: Engine) -> None:
        self.service = AutomationService(engine)
        loaded_at = engine.events.committed_seq  # before the definitions are read
        await self.service.load()
        engine.automations = self.service
        cluster = engine.cluster
        if cluster.shared:
            from .replica_sync import ScheduleSync
            from .routines.claims import RoutineClaims
            from .routines.claims_repository import RoutineClaimsRepository
            from .v2.claims import RunClaims
            from .v2.claims_repository import ClaimsRepository

            self.sync = ScheduleSync(engine, self.service, after_seq=loaded_at)
            assert cluster.replica_id is not None
            self.service.v2.claims = RunClaims(
                self.service.v2,
                ClaimsRepository(engine.store),
                replica_id=cluster.replica_id,
                lease_ms=engine.settings.cluster_lease_ms,
            )
            self.service.routines.claims = RoutineClaims(
                self.service.routines,
                RoutineClaimsRepository(engine.store),
                replica_id=cluster.replica_id,
                lease_ms=engine.settings.cluster_lease_ms,
                after_seq=loaded_at,
            )

    def children(self, engine: Engine) -> list[ChildSpec]:
        service = self.service
        assert service is not None
        children = [
            ChildSpec(
                id="automations-routine-runs",
                start=service.routine_pool.run,
                restart=Restart.PERMANENT,
            ),
            ChildSpec(
                id="automations-v2-runs", start=service.v2_pool.run, restart=Restart.PERMANENT
            ),
            ChildSpec(id=MATERIALIZER, start=service.journal.run, restart=Restart.PERMANENT),
        ]
        claims = service.v2.claims
        if claims is not None:
            children.append(
                ChildSpec(id="automations-v2-claims", start=claims.run, restart=Restart.PERMANENT)
            )
        routine_claims = service.routines.claims
        if routine_claims is not None:
            children.append(
                ChildSpec(
                    id="automations-routine-claims",
                    start=routine_claims.run,
                    restart=Restart.PERMANENT,
                )
            )
        if self.sync is not None:
            children.append(
                ChildSpec(
                    id="automations-schedule-sync", start=self.sync.run, restart=Restart.PERMANENT
                )
            )
        if engine.settings.automation_scheduler_enabled:
            children.append(
                ChildSpec(
                    id="automations-scheduler",
                    # Replicas on one store: only the replica holding the
                    # scheduler's lock fires (svc/cluster); alone, it always does.
                    start=engine.cluster.gate(
                        service.scheduler.run, on_lead=service.refresh_schedules
                    ),
                    restart=Restart.PERMANENT,
                )
            )
        return children

    async def started(self, engine: Engine) -> None:
        assert self.service is not None
        self.service.start()


__all__ = ["MATERIALIZER", "AutomationsComponent"]
