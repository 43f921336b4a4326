"""The automations facade: ``engine.automations``.

Routes and other domains (goals, workflows, teams) use this object; the work
is done by the services it holds: :class:`~svc.automations.v2.V2Service` for
automations v2, the routine service for routines (automations v1), the
work mission service for work missions, :class:`~svc.automations.governance.Governance`
for agent governance, the :class:`~svc.automations.scheduler.Scheduler`
that fires both kinds of schedule, and the
:class:`~svc.automations.scheduler.journal.FireJournal` that turns its
decisions into runs.

The interface other domains build on::

    automation = await engine.automations.create_v2(spec)
    run = await engine.automations.create_v2_run(automation.automation_id, context={"objective":
    "..."})
    run = await engine.automations.get_v2_run(run.run_id)      # .status, .node_outputs, .usage
    await engine.automations.cancel_v2_run(run.run_id, "no longer needed")
    engine.automations.definition_hash(automation)              # "sha256:<hex>"
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .governance import Governance
from .governance_repository import GovernanceRepository
from .pool import RunPool
from .principal import Principal, resolve_principal
from .routines import RoutineRepository, RoutineService
from .scheduler.journal import FireJournal
from .scheduler.journal_repository import JournalRepository
from .scheduler.scheduler import Scheduler
from .scheduler.signal import ScheduleSignal
from .v2 import V2Repository, V2Service
from .work_missions import WorkMissionRepository, WorkMissionService

if TYPE_CHECKING:
    from ..engine import Engine
    from .v2.records import AutomationV2, AutomationV2Run

# The v2 records are imported on first use: start-up on a fresh store never builds one
# (docs/architecture.md, "Start-up budget").


class AutomationService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        settings = engine.settings
        self.signal = ScheduleSignal()
        self.v2_pool = RunPool("automations-v2", settings.automation_v2_max_concurrent_runs)
        self.v2_repo = V2Repository(engine.store)
        self.governance = Governance(
            GovernanceRepository(engine.store),
            self.v2_repo,
            engine.clock,
            lambda: engine.settings,
            external_capability_check=self._external_capability,
        )
        self.v2 = V2Service(engine, self.v2_repo, self.governance, self.v2_pool, self.signal)
        self.routine_pool = RunPool("routines", settings.automation_max_concurrent_runs)
        self.routines = RoutineService(
            engine, RoutineRepository(engine.store), self.routine_pool, self.signal
        )
        self.work_missions = WorkMissionService(engine, WorkMissionRepository(engine.store))
        targets: dict[str, RoutineService | V2Service] = {"routine": self.routines, "v2": self.v2}
        self.journal = FireJournal(JournalRepository(engine.store), targets)
        self.scheduler = Scheduler(
            engine.clock,
            targets,
            self.signal,
            self.journal,
            grace_ms=lambda: engine.settings.automation_misfire_grace_ms,
        )

    async def load(self) -> None:
        await self.routines.load()
        await self.v2.load()
        # Fires a previous process journaled but did not turn into runs: their runs
        # and fire times land now, before the scheduler first loads its heap.
        await self.journal.recover()

    async def refresh_schedules(self) -> None:
        """Replicas on one store (svc/cluster): this replica has just become the
        scheduler's leader. Fires the previous leader journaled become runs, then
        schedules and fire times are read back as that leader left them, so no
        slot it fired is fired again. Alone on its store, there is nothing to read."""
        if not self.engine.cluster.shared:
            return
        await self.journal.recover()
        for routine, next_fire, last_fired in await self.routines.repo.all():
            self.routines._routines[routine.routine_id] = routine
            self.routines._set_fire(routine.routine_id, next_fire, last_fired)
        for automation in await self.v2.repo.all():
            self.v2._automations[automation.automation_id] = automation

    def start(self) -> None:
        """Once the engine is ready: queued runs (left by a previous process) start."""
        self.routines.start_pending()
        self.v2.start_pending()

    async def _external_capability(self, agent_id: str, key: str) -> bool:
        """An approved capability request in another domain's approvals store, if it offers one."""
        check = getattr(self.engine.mcp, "has_approved_capability", None)
        if check is None:
            return False
        result = check(agent_id, key)
        if inspect.isawaitable(result):
            result = await result
        return bool(result)

    # ------------------------------------------------------------------ automation v2 (the shared
    # interface)
    async def create_v2(
        self,
        spec: Mapping[str, Any],
        *,
        agent_id: str | None = None,
        request_source: str | None = None,
    ) -> AutomationV2:
        """Validate and store an automation v2; ValidationFailed names the field (and node)."""
        return await self.v2.create(spec, principal=resolve_principal(agent_id, request_source))

    async def get_v2(self, automation_id: str) -> AutomationV2 | None:
        return await self.v2.get(automation_id)

    def definition_hash(self, automation: AutomationV2 | Mapping[str, Any]) -> str:
        """``sha256:`` + hex digest of the canonical JSON of the spec (or of the mapping given)."""
        from .v2.records import AutomationV2, definition_hash

        spec = automation.spec if isinstance(automation, AutomationV2) else automation
        return definition_hash(spec)

    async def create_v2_run(
        self,
        automation_id: str,
        *,
        run_id: str | None = None,
        trigger_type: str = "manual",
        trigger_reason: str = "",
        context: Mapping[str, Any] | None = None,
        snapshot: Mapping[str, Any] | None = None,
    ) -> AutomationV2Run:
        """Persist a queued run and execute it in the background (idempotent on ``run_id``)."""
        return await self.v2.create_run(
            automation_id,
            run_id=run_id,
            trigger_type=trigger_type,
            trigger_reason=trigger_reason,
            context=context,
            snapshot=snapshot,
        )

    async def get_v2_run(self, run_id: str) -> AutomationV2Run | None:
        return await self.v2.get_run(run_id)

    async def cancel_v2_run(self, run_id: str, reason: str = "cancelled") -> bool:
        """Cancel a run that has not ended (waits briefly for it to stop); False if it had ended."""
        return await self.v2.cancel_run(run_id, reason)

    # ------------------------------------------------------------------ helpers for routes
    @staticmethod
    def principal(
        agent_id: str | None, request_source: str | None, ancestor_ids: str | None = None
    ) -> Principal:
        return resolve_principal(agent_id, request_source, ancestor_ids)


__all__ = ["AutomationService"]
