"""Routines (automations v1): definitions, runs, approvals, and their scheduling hooks.

Definitions and their fire times live in memory (loaded at start-up, written
through to the store); so do the runs that have not settled, so every change
of a run passes through here one at a time. A routine's runs execute one after
another (a per-routine lane: a queue drained by one job), at most ``automation_max_concurrent_runs`` across
routines, in the routine :class:`~svc.automations.pool.RunPool`.

Run statuses: ``queued``, ``pending_approval``, ``running``, ``paused``, and the
terminal ``blocked_policy``, ``denied``, ``completed``, ``failed``,
``cancelled``. Lifecycle events go to topic ``automations`` (the
``/automations/events`` stream) with ``runID``, ``routineID`` and
``automationID``: ``run.started`` (the run was created), ``approval.required``,
``run.step`` (``step``: started, approved, paused, resumed, artifact_added),
``routine.run.model_selected``, ``run.completed`` and ``run.failed`` (failed,
blocked by policy, denied, cancelled); ``routine.created``, ``routine.updated``
and ``routine.deleted`` too.
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections import Counter, deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from supervisors import BudgetScope

from ...errors import Conflict, ValidationFailed
from ..errors import (
    AutomationNotFound,
    RoutineNotFound,
    RoutinePolicyBlocked,
    RoutineRunNotFound,
    RunStateConflict,
)
from ..ids import unique_id
from ..pool import RunPool
from ..principal import HUMAN, Principal, require_human
from ..scheduler.journal import JournalRow
from ..scheduler.signal import ScheduleEntry, ScheduleSignal
from .repository import RoutineRepository

if TYPE_CHECKING:
    from ...engine import Engine
    from ..routing import ModelChoice
    from ..scheduler.schedule import MisfirePolicy
    from ..scheduler.timing import FirePlan
    from .bodies import RoutineFields
    from .execution import EntrypointHandler, EntrypointResult
    from .records import Routine, RoutineRun

# The body parsers, the records, the schedule math and the run execution are imported on
# first use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").

log = logging.getLogger("svc.automations")

TOPIC = "automations"
DETAIL_LIMIT = 500
MAX_RUN_COUNT = 20


class RoutineService:
    def __init__(
        self, engine: Engine, repo: RoutineRepository, pool: RunPool, signal: ScheduleSignal
    ) -> None:
        self.engine = engine
        self.repo = repo
        self.pool = pool
        self.signal = signal
        self._routines: dict[str, Routine] = {}
        self._next_fire: dict[str, int | None] = {}
        self._last_fired: dict[str, int | None] = {}
        """The fire times per routine (two maps, so a tick's journal row applies without a tuple each)."""
        self._live: dict[str, RoutineRun] = {}
        self._journaled: set[str] = set()
        """Routines with a journaled fire not yet materialized (busy for the scheduler)."""
        self._recovered: list[RoutineRun] = []
        """Runs materialized from the journal at start-up, announced and started by :meth:`start_pending`."""
        self._busy: Counter[str] = Counter()
        self._lanes: dict[str, deque[str]] = {}
        """Per routine, its queued runs in order: a routine's runs execute one after another."""
        self._lane_active: set[str] = set()
        self._budgets: dict[str, BudgetScope] = {}
        self._entrypoints: dict[str, EntrypointHandler] = {}

    # ------------------------------------------------------------------ plumbing
    def now_ms(self) -> int:
        return self.engine.clock.now_ms()

    def publish(self, type: str, run: RoutineRun, /, **properties: Any) -> None:
        self.engine.events.publish(
            type,
            {
                "runID": run.run_id,
                "routineID": run.routine_id,
                "automationID": run.routine_id,
                **properties,
            },
            topic=TOPIC,
        )

    def register_entrypoint(self, name: str, handler: EntrypointHandler) -> None:
        """Run routines whose entrypoint is ``name`` (or starts with ``name`` ending in ``.``/``*``) with ``handler``."""
        self._entrypoints[name] = handler

    def handler_for(self, entrypoint: str) -> EntrypointHandler:
        if entrypoint in self._entrypoints:
            return self._entrypoints[entrypoint]
        best = ""
        for name in self._entrypoints:
            prefix = name[:-1] if name.endswith("*") else name
            if (
                name.endswith(("*", "."))
                and entrypoint.startswith(prefix)
                and len(prefix) > len(best)
            ):
                best = name
        if best:
            return self._entrypoints[best]
        from .execution import session_entrypoint

        return session_entrypoint

    async def store(self, run: RoutineRun) -> None:
        """Persist ``run``; keep the unsettled set and the scheduler's busy marks in step."""
        before = self._live.get(run.run_id)
        was_busy = before is not None and before.busy
        is_busy = run.busy
        if run.terminal:
            self._live.pop(run.run_id, None)
        else:
            self._live[run.run_id] = run
        if was_busy != is_busy:
            self._busy[run.routine_id] += 1 if is_busy else -1
            if self._busy[run.routine_id] <= 0:
                del self._busy[run.routine_id]
                self.signal.changed("routine", run.routine_id)
        await self.repo.save_run(run)

    # ------------------------------------------------------------------ start-up
    async def load(self) -> None:
        for routine, next_fire, last_fired in await self.repo.all():
            self._routines[routine.routine_id] = routine
            self._set_fire(routine.routine_id, next_fire, last_fired)
        now = self.now_ms()
        # A run the previous process left running cannot be resumed mid-session
        # (its session run was settled as interrupted): it ends failed.
        for run in await self.repo.runs(statuses=("running",), limit=100_000):
            await self.repo.save_run(
                attrs.evolve(
                    run,
                    status="failed",
                    finished_at_ms=now,
                    updated_at_ms=now,
                    detail="the engine stopped while this run was active",
                )
            )
        for run in await self.repo.runs(
            statuses=("queued", "pending_approval", "paused"), limit=100_000
        ):
            self._live[run.run_id] = run
            if run.busy:
                self._busy[run.routine_id] += 1

    def start_pending(self) -> None:
        recovered, self._recovered = self._recovered, []
        fresh = {run.run_id for run in recovered}
        for run in sorted(self._live.values(), key=lambda r: r.created_at_ms):
            if run.status == "queued" and run.run_id not in fresh:
                self._enqueue(run)
        if recovered:
            # Never announced by the process that journaled them: announce, then start.
            self.pool.submit(functools.partial(self._announce_and_start, recovered))

    # ------------------------------------------------------------------ definitions
    def require(self, routine_id: str, *, dialect: str = "routine") -> Routine:
        routine = self._routines.get(routine_id)
        if routine is None:
            if dialect == "automation":
                raise AutomationNotFound(
                    f"automation `{routine_id}` not found", automationID=routine_id
                )
            raise RoutineNotFound(f"routine `{routine_id}` not found", routineID=routine_id)
        return routine

    def get(self, routine_id: str) -> Routine | None:
        return self._routines.get(routine_id)

    def fire_times(self, routine_id: str) -> tuple[int | None, int | None]:
        return self._next_fire.get(routine_id), self._last_fired.get(routine_id)

    def _set_fire(self, routine_id: str, next_fire: int | None, last_fired: int | None) -> None:
        self._next_fire[routine_id] = next_fire
        self._last_fired[routine_id] = last_fired

    def list(self) -> list[Routine]:
        return sorted(self._routines.values(), key=lambda r: (r.created_at_ms, r.routine_id))

    def routine_wire(self, routine: Routine) -> dict[str, Any]:
        return routine.routine_wire(*self.fire_times(routine.routine_id))

    def automation_wire(self, routine: Routine) -> dict[str, Any]:
        return routine.automation_wire(*self.fire_times(routine.routine_id))

    async def create(
        self, body: Any, *, principal: Principal = HUMAN, dialect: str = "routine"
    ) -> Routine:
        from ..scheduler.timing import first_fire_at
        from .bodies import AUTOMATION_CODE, ROUTINE_CODE, parse_body

        require_human(principal, "creation")
        code = AUTOMATION_CODE if dialect == "automation" else ROUTINE_CODE
        fields = parse_body(body, workspace=self.engine.workspace, code=code)
        routine_id = fields.routine_id or str(uuid.uuid4())
        if routine_id in self._routines:
            raise Conflict(
                f"routine `{routine_id}` already exists",
                code="ROUTINE_EXISTS",
                routineID=routine_id,
            )
        now = self.now_ms()
        routine = self._routine(
            fields,
            routine_id,
            created_at_ms=now,
            now=now,
            creator_id=fields.creator_id or (principal.agent_id or "unknown"),
        )
        next_fire = fields.next_fire_at_ms
        if next_fire is None and routine.status == "active":
            next_fire = first_fire_at(routine.schedule, now)
        await self.repo.save(routine, next_fire, None)
        self._routines[routine_id] = routine
        self._set_fire(routine_id, next_fire, None)
        self.signal.changed("routine", routine_id)
        self.engine.events.publish(
            "routine.created",
            {
                "routineID": routine_id,
                "automationID": routine_id,
                "name": routine.name,
                "entrypoint": routine.entrypoint,
            },
            topic=TOPIC,
        )
        return routine

    def _routine(
        self,
        fields: RoutineFields,
        routine_id: str,
        *,
        created_at_ms: int,
        now: int,
        creator_id: str,
    ) -> Routine:
        from .records import Routine

        return Routine(
            routine_id=routine_id,
            name=fields.name,
            status=fields.status,
            schedule=fields.schedule,
            misfire=fields.misfire,
            entrypoint=fields.entrypoint,
            args=fields.args,
            allowed_tools=fields.allowed_tools,
            output_targets=fields.output_targets,
            requires_approval=fields.requires_approval,
            external_integrations_allowed=fields.external_integrations_allowed,
            created_at_ms=created_at_ms,
            updated_at_ms=now,
            creator_type="user",
            creator_id=creator_id,
        )

    async def patch(self, routine_id: str, patch: Any, *, dialect: str = "routine") -> Routine:
        from ..scheduler.timing import first_fire_at
        from .bodies import (
            AUTOMATION_CODE,
            ROUTINE_CODE,
            parse_mission_body,
            parse_routine_body,
            patched_mission_body,
            patched_routine_body,
        )

        current = self.require(routine_id, dialect=dialect)
        if dialect == "automation":
            code = AUTOMATION_CODE
            fields = parse_mission_body(
                patched_mission_body(current, patch, code=code),
                workspace=self.engine.workspace,
                code=code,
            )
        else:
            code = ROUTINE_CODE
            fields = parse_routine_body(
                patched_routine_body(current, patch, code=code),
                workspace=self.engine.workspace,
                code=code,
            )
        now = self.now_ms()
        updated = self._routine(
            fields,
            routine_id,
            created_at_ms=current.created_at_ms,
            now=now,
            creator_id=current.creator_id,
        )
        next_fire, last_fired = self.fire_times(routine_id)
        if isinstance(patch, Mapping) and patch.get("next_fire_at_ms") is not None:
            next_fire = fields.next_fire_at_ms
        elif updated.status != "active":
            next_fire = None
        elif (
            current.status != "active" or next_fire is None or updated.schedule != current.schedule
        ):
            next_fire = first_fire_at(updated.schedule, now)
        await self.repo.save(updated, next_fire, last_fired)
        self._routines[routine_id] = updated
        self._set_fire(routine_id, next_fire, last_fired)
        self.signal.changed("routine", routine_id)
        self.engine.events.publish(
            "routine.updated",
            {
                "routineID": routine_id,
                "automationID": routine_id,
                "status": updated.status,
                "nextFireAtMs": next_fire,
            },
            topic=TOPIC,
        )
        return updated

    async def delete(self, routine_id: str, *, dialect: str = "routine") -> Routine:
        current = self.require(routine_id, dialect=dialect)
        await self.repo.delete(routine_id)
        self._routines.pop(routine_id, None)
        self._next_fire.pop(routine_id, None)
        self._last_fired.pop(routine_id, None)
        self.signal.changed("routine", routine_id)
        self.engine.events.publish(
            "routine.deleted", {"routineID": routine_id, "automationID": routine_id}, topic=TOPIC
        )
        return current

    # ------------------------------------------------------------------ creating runs
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

    # ------------------------------------------------------------------ reading runs
    async def get_run(self, run_id: str) -> RoutineRun | None:
        return self._live.get(run_id) or await self.repo.get_run(run_id)

    async def require_run(self, run_id: str) -> RoutineRun:
        run = await self.get_run(run_id)
        if run is None:
            raise RoutineRunNotFound(f"run `{run_id}` not found", runID=run_id)
        return run

    async def list_runs(
        self, *, routine_id: str | None = None, limit: int = 100
    ) -> list[RoutineRun]:
        return await self.repo.runs(routine_id=routine_id, limit=limit)

    # ------------------------------------------------------------------ decisions
    def _unsettled(self, run_id: str) -> RoutineRun | None:
        return self._live.get(run_id)

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

    # ------------------------------------------------------------------ artifacts
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

    def _artifact(
        self, uri: str, kind: str, label: str | None, metadata: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        artifact: dict[str, Any] = {
            "artifact_id": f"artifact-{uuid.uuid4()}",
            "uri": uri,
            "kind": kind,
            "created_at_ms": self.now_ms(),
        }
        if label is not None:
            artifact["label"] = label
        if metadata is not None:
            artifact["metadata"] = dict(metadata)
        return artifact

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

    # ------------------------------------------------------------------ execution
    async def _execute(self, run_id: str) -> None:
        """Run one queued run (called by its routine's lane, so never two of a routine at once)."""
        async with self.pool.limiter:
            run = self._live.get(run_id)
            if run is None or run.status != "queued":
                return  # paused, or handled while it waited for its turn
            await self._execute_locked(run)

    async def _execute_locked(self, run: RoutineRun) -> None:
        from .execution import EntrypointResult, RunContext

        run_id = run.run_id
        now = self.now_ms()
        run = attrs.evolve(
            run, status="running", started_at_ms=now, updated_at_ms=now, finished_at_ms=None
        )
        await self.store(run)
        self.publish(
            "run.step",
            run,
            step="started",
            phase="do",
            triggerType=run.trigger_type,
            startedAtMs=now,
        )
        budget = BudgetScope(name=f"routine-run/{run_id}")
        self._budgets[run_id] = budget
        result: EntrypointResult | None = None

        async def on_session(session_id: str, session_run_id: str) -> None:
            current = self._live.get(run_id, run)
            await self.store(
                attrs.evolve(
                    current,
                    latest_session_id=session_id,
                    session_ids=(*current.session_ids, session_id),
                    updated_at_ms=self.now_ms(),
                )
            )

        async def on_model(choice: ModelChoice) -> None:
            current = self._live.get(run_id, run)
            await self.store(
                attrs.evolve(current, model=choice.to_wire(), updated_at_ms=self.now_ms())
            )
            self.publish(
                "routine.run.model_selected",
                current,
                providerID=choice.provider_id,
                modelID=choice.model_id,
                source=choice.source,
                phase="do",
            )

        try:
            with budget:
                result = await self.handler_for(run.entrypoint)(
                    RunContext(self.engine, run, budget, on_session, on_model)
                )
        except Exception:
            log.exception("routine run %s failed unexpectedly", run_id)
            result = EntrypointResult("failed", detail="internal error while running the routine")
        finally:
            self._budgets.pop(run_id, None)
        current = self._live.get(run_id)
        if current is None or current.status == "paused":
            return  # paused meanwhile: it stays paused until resumed
        await self._settle(current, result)

    async def _settle(self, run: RoutineRun, result: EntrypointResult | None) -> None:
        from .execution import EntrypointResult

        now = self.now_ms()
        if result is None:
            result = EntrypointResult("cancelled", detail="the run was cancelled")
        if result.usage is not None:
            cost_rate = self.engine.settings.token_cost_per_1k_usd
            usage = result.usage
            run = attrs.evolve(
                run,
                prompt_tokens=run.prompt_tokens + usage.prompt_tokens,
                completion_tokens=run.completion_tokens + usage.completion_tokens,
                total_tokens=run.total_tokens + usage.total_tokens,
                estimated_cost_usd=round(
                    run.estimated_cost_usd
                    + (usage.cost_usd or usage.total_tokens * cost_rate / 1000),
                    8,
                ),
            )
        if result.status == "completed":
            artifacts, refused = self._target_artifacts(run)
            detail = "routine run completed"
            if refused:
                detail += "; refused output targets: " + "; ".join(refused)
            run = attrs.evolve(
                run,
                status="completed",
                finished_at_ms=now,
                updated_at_ms=now,
                detail=detail[:DETAIL_LIMIT],
                artifacts=(*run.artifacts, *artifacts),
            )
            await self.store(run)
            for artifact in artifacts:
                self.publish("run.step", run, step="artifact_added", phase="do", artifact=artifact)
            self.publish(
                "run.completed",
                run,
                status="completed",
                sessionID=result.session_id,
                finishedAtMs=now,
                totalTokens=run.total_tokens,
                artifactCount=len(run.artifacts),
            )
            return
        status = "cancelled" if result.status == "cancelled" else "failed"
        detail = (result.detail or f"routine run {status}")[:DETAIL_LIMIT]
        run = attrs.evolve(run, status=status, finished_at_ms=now, updated_at_ms=now, detail=detail)
        await self.store(run)
        self.publish(
            "run.failed",
            run,
            status=status,
            reason=detail,
            sessionID=result.session_id,
            finishedAtMs=now,
        )

    def _target_artifacts(self, run: RoutineRun) -> tuple[list[dict[str, Any]], list[str]]:
        """One artifact per output target still inside the workspace; the refused ones' reasons."""
        from ..targets import confined

        artifacts, refused = [], []
        workspace = self.engine.workspace
        for target, path, why in confined(run.output_targets, workspace):
            if path is None:
                refused.append(f"{target}: {why}")
                continue
            artifacts.append(
                self._artifact(
                    target,
                    "output_target",
                    "configured output target",
                    {
                        "source": "routine.output_targets",
                        "runID": run.run_id,
                        "routineID": run.routine_id,
                        "path": str(path.relative_to(workspace.resolve())),
                        "exists": path.is_file(),
                    },
                )
            )
        return artifacts, refused

    # ------------------------------------------------------------------ scheduling
    def schedule_entries(self) -> list[ScheduleEntry]:
        return [e for e in (self.entry(r) for r in self._routines) if e is not None]

    def entry(self, routine_id: str) -> ScheduleEntry | None:
        routine = self._routines.get(routine_id)
        if routine is None or routine.status != "active":
            return None
        next_fire = self._next_fire.get(routine_id)
        if next_fire is None or routine.schedule.kind == "manual":
            return None
        return ScheduleEntry("routine", routine_id, routine.schedule, routine.misfire, next_fire)

    def busy(self, routine_id: str) -> bool:
        return routine_id in self._busy or routine_id in self._journaled

    def held(self, routine_ids: list[str]) -> set[str]:
        held = set(filter(self._busy.__contains__, routine_ids)) if self._busy else set()
        if self._journaled:
            held.update(self._journaled.intersection(routine_ids))
        return held

    def missed_reason(self, misfire: MisfirePolicy, plan: FirePlan) -> str:
        return f"misfire: {plan.due} fires were due ({misfire.kind})"

    def journaled(self, row: JournalRow) -> None:
        """A tick's decisions are committed: the fire times move now, the runs come with :meth:`materialize`."""
        next_fires, last_fired, routines, journaled = (
            self._next_fire,
            self._last_fired,
            self._routines,
            self._journaled,
        )
        decisions = row.decisions
        ids = decisions.ids
        if not decisions.special:
            # The common case (on-time fires), in bulk. The fire times have an entry
            # per routine, so a routine deleted while the row was being committed
            # shows as one entry too many: take those out again.
            next_fires.update(zip(ids, decisions.nexts, strict=True))
            last_fired.update(zip(ids, decisions.ats, strict=True))
            journaled.update(ids)
            if len(next_fires) != len(routines):
                for routine_id in ids:
                    if routine_id not in routines:
                        next_fires.pop(routine_id, None)
                        last_fired.pop(routine_id, None)
                        journaled.discard(routine_id)
            return
        for routine_id, slots, next_fire, _reason in decisions:
            if routine_id not in routines:
                continue  # deleted while the decision was being committed
            next_fires[routine_id] = next_fire
            if slots:
                last_fired[routine_id] = slots[-1]
            journaled.add(routine_id)

    async def materialize(self, row: JournalRow, *, recovering: bool) -> None:
        """The runs of a journal row, the fire times and the row's deletion in one transaction; then admit them.

        The fire times written are the current ones, which already account for
        the row (and for any edit made since).
        """
        moved: list[tuple[int | None, int | None, str]] = []
        runs: list[RoutineRun] = []
        routines, fire_times, new_run = self._routines, self.fire_times, self._new_run
        fired_at = row.fired_at_ms
        for routine_id, slots, _next, reason in row.decisions:
            routine = routines.get(routine_id)
            if routine is None:
                continue  # deleted since the decision: nothing to run
            next_fire, last = fire_times(routine_id)
            moved.append((next_fire, last, routine_id))
            for slot in slots:
                runs.append(
                    new_run(routine, "scheduled", fired_at, scheduled_at_ms=slot, reason=reason)
                )
        await self.repo.materialize(row.seq, moved, runs)
        # No checkpoint from the commit to the end: memory always agrees with the store.
        self._admit(runs, start=not recovering)
        journaled, busy = self._journaled, self._busy
        for routine_id, *_ in row.decisions:
            journaled.discard(routine_id)
            if routine_id not in busy:
                # Nothing of it is queued (skipped fires, runs blocked by policy):
                # a fire it missed meanwhile may happen now.
                self.signal.changed("routine", routine_id)

    # ------------------------------------------------------------------ history
    async def history(self, routine_id: str, *, limit: int = 50) -> list[dict[str, Any]]:
        return [
            run.history_wire() for run in await self.repo.runs(routine_id=routine_id, limit=limit)
        ]


__all__ = ["TOPIC", "RoutineService"]
