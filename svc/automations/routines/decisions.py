"""Operator decisions on routine runs: approve, deny, pause, resume; a routine's history."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..errors import (
    RunStateConflict,
)
from ..principal import HUMAN, Principal, require_human
from .runs import RoutineRuns

if TYPE_CHECKING:
    from .records import RoutineRun


# The body parsers, the records, the schedule math and the run execution are imported on
# first use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").


class RoutineDecisions(RoutineRuns):
    async def approve(
        self, run_id: str, *, principal: Principal = HUMAN, reason: str | None = None
    ) -> RoutineRun:
        require_human(principal, "approval")
        run = await self._expect(
            run_id,
            ("pending_approval",),
            "ROUTINE_RUN_NOT_PENDING_APPROVAL",
            "the run is not waiting for approval",
        )
        run = attrs.evolve(
            run,
            status="queued",
            approval_reason=(reason or "").strip() or "approved by operator",
            updated_at_ms=self.now_ms(),
        )
        await self.store(run)
        self.publish("run.step", run, step="approved", phase="approval", reason=run.approval_reason)
        self._enqueue(run)
        return run

    async def deny(
        self, run_id: str, *, principal: Principal = HUMAN, reason: str | None = None
    ) -> RoutineRun:
        require_human(principal, "approval")
        run = await self._expect(
            run_id,
            ("pending_approval",),
            "ROUTINE_RUN_NOT_PENDING_APPROVAL",
            "the run is not waiting for approval",
        )
        now = self.now_ms()
        note = (reason or "").strip() or "denied by operator"
        run = attrs.evolve(
            run,
            status="denied",
            denial_reason=note,
            detail=note,
            updated_at_ms=now,
            finished_at_ms=now,
        )
        await self.store(run)
        self.publish("run.failed", run, status="denied", reason=note, finishedAtMs=now)
        return run

    async def pause(
        self, run_id: str, *, principal: Principal = HUMAN, reason: str | None = None
    ) -> tuple[RoutineRun, list[str]]:
        require_human(principal, "pause")
        run = await self._expect(
            run_id,
            ("queued", "running"),
            "ROUTINE_RUN_NOT_PAUSABLE",
            "only a queued or running run can be paused",
        )
        cancelled = list(run.active_session_ids)
        note = (reason or "").strip() or "paused by operator"
        run = attrs.evolve(run, status="paused", paused_reason=note, updated_at_ms=self.now_ms())
        await self.store(run)
        budget = self._budgets.get(run_id)
        if budget is not None:
            budget.cancel("paused")
        self.publish(
            "run.step",
            run,
            step="paused",
            phase="blocked",
            reason=note,
            cancelledSessionIDs=cancelled,
        )
        return run, cancelled

    async def resume(
        self, run_id: str, *, principal: Principal = HUMAN, reason: str | None = None
    ) -> RoutineRun:
        require_human(principal, "resume")
        run = await self._expect(
            run_id, ("paused",), "ROUTINE_RUN_NOT_PAUSED", "only a paused run can be resumed"
        )
        run = attrs.evolve(
            run,
            status="queued",
            paused_reason=None,
            updated_at_ms=self.now_ms(),
            detail=(reason or "").strip() or "resumed by operator",
        )
        await self.store(run)
        self.publish("run.step", run, step="resumed", phase="do", reason=run.detail)
        self._enqueue(run)
        return run

    async def _expect(
        self, run_id: str, statuses: tuple[str, ...], code: str, message: str
    ) -> RoutineRun:
        run = self._live.get(run_id)
        if self.claims is not None and run_id not in self._budgets:
            # Replicas on one store: the run may be another replica's; the store has it.
            run = await self.repo.get_run(run_id)
            if run is not None and run.terminal:
                run = None
        if run is None:
            stored = await self.require_run(run_id)
            raise RunStateConflict(
                f"{message} (status {stored.status})",
                code=code,
                runID=run_id,
                runStatus=stored.status,
            )
        if run.status not in statuses:
            raise RunStateConflict(
                f"{message} (status {run.status})", code=code, runID=run_id, runStatus=run.status
            )
        return run

    async def history(self, routine_id: str, *, limit: int = 50) -> list[dict[str, Any]]:
        return [
            run.history_wire() for run in await self.repo.runs(routine_id=routine_id, limit=limit)
        ]


__all__ = ["RoutineDecisions"]
