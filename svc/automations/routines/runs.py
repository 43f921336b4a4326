"""Creating routine runs, announcing them, queueing them on their routine's lane; reading runs.

A routine's runs execute one after another through a per-routine lane: a queue
of run ids drained by ONE pool job, started when the first run is queued and
ended when the lane is empty. That is a queue rather than a per-routine lock
(:class:`actors.SerialByKey`) on purpose: a routine can have many runs queued
at once (``run_count`` up to 20, catch-up fires), and a lane costs one job per
routine, where a lock would hold one waiting task per queued run; the order is
the queue's, and a run paused while it waits is simply skipped when its turn
comes.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ...errors import ValidationFailed
from ..errors import (
    RoutinePolicyBlocked,
    RoutineRunNotFound,
)
from ..ids import unique_id
from ..principal import HUMAN, Principal, require_human
from .running import RoutineExecution
from .state import MAX_RUN_COUNT

if TYPE_CHECKING:
    from .records import Routine, RoutineRun


# The body parsers, the records, the schedule math and the run execution are imported on
# first use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").


class RoutineRuns(RoutineExecution):
    async def load(self) -> None:
        for routine, next_fire, last_fired in await self.repo.all():
            self._routines[routine.routine_id] = routine
            self._set_fire(routine.routine_id, next_fire, last_fired)
        now = self.now_ms()
        # A run the previous process left running cannot be resumed mid-session
        # (its session run was settled as interrupted): it ends failed. Replicas
        # sharing a store end only those no live replica holds (claimed here
        # first, so two replicas starting together never both end one).
        left_running = await self._left_running(now)
        for run in left_running:
            await self.repo.save_run(
                attrs.evolve(
                    run,
                    status="failed",
                    finished_at_ms=now,
                    updated_at_ms=now,
                    detail="the engine stopped while this run was active",
                )
            )
        if self.engine.cluster.shared:
            await self._release_all(left_running)
        for run in await self.repo.runs(
            statuses=("queued", "pending_approval", "paused"), limit=100_000
        ):
            self._live[run.run_id] = run
            if run.busy:
                self._busy[run.routine_id] += 1

    async def _left_running(self, now: int) -> list[RoutineRun]:
        cluster = self.engine.cluster
        if not cluster.shared:
            return await self.repo.runs(statuses=("running",), limit=100_000)
        from .claims_repository import RoutineClaimsRepository

        assert cluster.replica_id is not None
        return await RoutineClaimsRepository(self.repo.db).claim_abandoned(
            cluster.replica_id, now_ms=now, lease_ms=self.engine.settings.cluster_lease_ms
        )

    async def _release_all(self, runs: list[RoutineRun]) -> None:
        from .claims_repository import RoutineClaimsRepository

        repo, replica_id = RoutineClaimsRepository(self.repo.db), self.engine.cluster.replica_id
        assert replica_id is not None
        for run in runs:
            await repo.release(replica_id, run.run_id)

    def start_pending(self) -> None:
        recovered, self._recovered = self._recovered, []
        fresh = {run.run_id for run in recovered}
        for run in sorted(self._live.values(), key=lambda r: r.created_at_ms):
            if run.status == "queued" and run.run_id not in fresh:
                self._enqueue(run)
        if recovered:
            # Never announced by the process that journaled them: announce, then start.
            self.pool.submit(functools.partial(self._announce_and_start, recovered))

    def _new_run(
        self,
        routine: Routine,
        trigger_type: str,
        now: int,
        *,
        scheduled_at_ms: int | None = None,
        reason: str | None = None,
    ) -> RoutineRun:
        from .records import RoutineRun

        snapshot = routine.snapshot_data
        verdict = routine.initial_statuses.get(trigger_type)
        if verdict is None:
            from .policy import initial_status

            # The verdict depends only on the definition: once per routine and trigger.
            verdict = routine.initial_statuses[trigger_type] = initial_status(
                snapshot, trigger_type
            )
        status, why = verdict
        return RoutineRun(
            run_id=f"routine-run-{unique_id()}",
            routine_id=routine.routine_id,
            trigger_type=trigger_type,
            status=status,
            created_at_ms=now,
            updated_at_ms=now,
            fired_at_ms=now,
            snapshot=snapshot,
            snapshot_json=routine.snapshot_json,
            scheduled_at_ms=scheduled_at_ms,
            requires_approval=routine.requires_approval,
            approval_reason=why if status == "pending_approval" else None,
            detail=why if status != "queued" else reason,
            finished_at_ms=now if status == "blocked_policy" else None,
        )

    def _admit(self, runs: list[RoutineRun], *, start: bool = True) -> None:
        """Runs just committed: track them; one job announces them all, in order, then starts them.

        Without ``start`` (start-up recovery) they wait for :meth:`start_pending`.
        """
        live, busy = self._live, self._busy
        for run in runs:
            if not run.terminal:
                live[run.run_id] = run
                if run.busy:
                    busy[run.routine_id] += 1
        if not start:
            self._recovered.extend(runs)
            return
        try:
            self.pool.submit(functools.partial(self._announce_and_start, runs))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            # The engine is stopping: the runs are stored as queued and start after the restart.
            pass

    async def _announce_and_start(self, runs: list[RoutineRun]) -> None:
        for run in runs:
            self._announce(run)
        for run in runs:
            current = self._live.get(run.run_id)
            if current is not None and current.status == "queued":
                self._enqueue(current)

    def _enqueue(self, run: RoutineRun) -> None:
        """Queue ``run`` on its routine's lane (starting the lane's runner if it is idle)."""
        if self.claims is not None:
            # Stored as queued: the replica that claims it runs it (one per routine at once).
            self.claims.wake()
            return
        self._lanes.setdefault(run.routine_id, deque()).append(run.run_id)
        if run.routine_id not in self._lane_active:
            self._lane_active.add(run.routine_id)
            self.pool.submit(functools.partial(self._drain_lane, run.routine_id))

    async def _drain_lane(self, routine_id: str) -> None:
        lane = self._lanes[routine_id]
        try:
            while lane:
                await self._execute(lane.popleft())
        finally:
            self._lane_active.discard(routine_id)
            if not lane:
                self._lanes.pop(routine_id, None)

    def _announce(self, run: RoutineRun) -> None:
        properties = {
            "triggerType": run.trigger_type,
            "runCount": run.run_count,
            "status": run.status,
            "firedAtMs": run.fired_at_ms,
            "scheduledAtMs": run.scheduled_at_ms,
            "reason": run.detail,
        }
        self.publish("run.started", run, **properties)
        if run.status == "pending_approval":
            self.publish(
                "approval.required",
                run,
                reason=run.approval_reason,
                triggerType=run.trigger_type,
                runCount=run.run_count,
            )
        elif run.status == "blocked_policy":
            self.publish(
                "run.failed",
                run,
                status="blocked_policy",
                reason=run.detail,
                triggerType=run.trigger_type,
                finishedAtMs=run.finished_at_ms,
            )

    async def run_now(
        self,
        routine_id: str,
        *,
        principal: Principal = HUMAN,
        run_count: int = 1,
        reason: str | None = None,
        dialect: str = "routine",
    ) -> list[RoutineRun]:
        """Fire the routine now: ``run_count`` runs, executed one after another.

        A routine blocked by policy still gets its runs recorded (``blocked_policy``),
        then :class:`RoutinePolicyBlocked` (403) is raised.
        """
        require_human(principal, "runs")
        routine = self.require(routine_id, dialect=dialect)
        if (
            isinstance(run_count, bool)
            or not isinstance(run_count, int)
            or not 1 <= run_count <= MAX_RUN_COUNT
        ):
            raise ValidationFailed(
                f"`run_count` must be an integer from 1 to {MAX_RUN_COUNT}", field="run_count"
            )
        now = self.now_ms()
        runs = [self._new_run(routine, "manual", now, reason=reason) for _ in range(run_count)]
        next_fire, _last = self.fire_times(routine_id)
        await self.repo.fire([(next_fire, now, routine_id)], runs)
        self._set_fire(routine_id, next_fire, now)
        self._admit(runs)
        if runs[0].status == "blocked_policy":
            raise RoutinePolicyBlocked(
                routineID=routine_id,
                automationID=routine_id,
                runID=runs[0].run_id,
                reason=runs[0].detail,
                run=runs[0].automation_wire(),
                **runs[0].context_links(),
            )
        return runs

    async def get_run(self, run_id: str) -> RoutineRun | None:
        live = self._live.get(run_id)
        if live is not None and (self.claims is None or run_id in self._budgets):
            return live
        # Replicas on one store: a run executing elsewhere is as the store has it.
        return await self.repo.get_run(run_id) or live

    async def adopt_claimed(self, run: RoutineRun) -> bool:
        """Replicas on one store: ``run`` was claimed here; track it; whether it executes.

        A run claimed while ``running`` was left by a replica that stopped: a
        session run cannot resume mid-turn, so it ends failed (as one engine
        ends the runs its previous process left running).
        """
        if run.status == "running":
            now = self.now_ms()
            detail = "the replica running it stopped while this run was active"
            run = attrs.evolve(
                run, status="failed", finished_at_ms=now, updated_at_ms=now, detail=detail
            )
            await self.store(run)
            self.publish("run.failed", run, status="failed", reason=detail, finishedAtMs=now)
            return False
        current = self._live.get(run.run_id)
        if current is None or current.status != run.status:
            # Another replica's run (or one resumed here): record it through
            # store, which keeps the busy marks in step.
            await self.store(run)
        return True

    def forget_settled(self, run_id: str) -> None:
        """Replicas on one store: a run tracked here ended on another replica."""
        if run_id in self._budgets:
            return  # it executes here, and ends here
        self._forget(run_id)

    def paused_elsewhere(self, run_id: str, reason: str) -> None:
        """Replicas on one store: ``run_id`` was paused through another replica; stop it here."""
        current = self._live.get(run_id)
        budget = self._budgets.get(run_id)
        if budget is None or current is None:
            self._forget(run_id)  # not executing here: the store has it paused
            return
        # Paused in memory first, so the execution ends without settling the run.
        self._forget(run_id)
        self._live[run_id] = attrs.evolve(current, status="paused", paused_reason=reason)
        budget.cancel("paused")

    def _forget(self, run_id: str) -> None:
        run = self._live.pop(run_id, None)
        if run is not None and run.busy:
            self._busy[run.routine_id] -= 1
            if self._busy[run.routine_id] <= 0:
                del self._busy[run.routine_id]
                self.signal.changed("routine", run.routine_id)

    async def require_run(self, run_id: str) -> RoutineRun:
        run = await self.get_run(run_id)
        if run is None:
            raise RoutineRunNotFound(f"run `{run_id}` not found", runID=run_id)
        return run

    async def list_runs(
        self,
        *,
        routine_id: str | None = None,
        statuses: Iterable[str] | None = None,
        limit: int = 100,
    ) -> list[RoutineRun]:
        return await self.repo.runs(routine_id=routine_id, statuses=statuses, limit=limit)

    async def add_artifact(self, run_id: str, body: Any) -> tuple[RoutineRun, dict[str, Any]]:
        from ..targets import SCHEME, confined

        if not isinstance(body, Mapping):
            raise ValidationFailed(
                "request body must be a JSON object", field="$", code="ROUTINE_ARTIFACT_INVALID"
            )
        for key in ("uri", "kind"):
            if not isinstance(body.get(key), str) or not body[key].strip():
                raise ValidationFailed(
                    f"`{key}` must be a non-empty string",
                    field=key,
                    code="ROUTINE_ARTIFACT_INVALID",
                )
        if body.get("label") is not None and not isinstance(body["label"], str):
            raise ValidationFailed(
                "`label` must be a string", field="label", code="ROUTINE_ARTIFACT_INVALID"
            )
        if body.get("metadata") is not None and not isinstance(body["metadata"], Mapping):
            raise ValidationFailed(
                "`metadata` must be an object", field="metadata", code="ROUTINE_ARTIFACT_INVALID"
            )
        uri = body["uri"].strip()
        if uri.startswith(SCHEME):
            refused = confined([uri], self.engine.workspace)[0][2]
            if refused:
                raise ValidationFailed(
                    refused.replace("`output_targets`", "`uri`"),
                    field="uri",
                    code="ROUTINE_ARTIFACT_INVALID",
                )
        run = await self.require_run(run_id)
        artifact = self._artifact(
            uri, body["kind"].strip(), body.get("label"), body.get("metadata")
        )
        run = await self._append_artifacts(run, [artifact])
        return run, artifact

    async def _append_artifacts(
        self, run: RoutineRun, artifacts: list[dict[str, Any]]
    ) -> RoutineRun:
        current = self._live.get(run.run_id, run)
        current = attrs.evolve(
            current, artifacts=(*current.artifacts, *artifacts), updated_at_ms=self.now_ms()
        )
        await self.store(current)
        for artifact in artifacts:
            self.publish("run.step", current, step="artifact_added", phase="do", artifact=artifact)
        return current


__all__ = ["RoutineRuns"]
