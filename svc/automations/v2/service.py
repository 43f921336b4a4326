"""Automations v2: definitions, runs, gates, and their scheduling hooks.

Definitions are kept in memory (loaded at start-up, written through to the
store); runs that have not ended are kept in memory too, so every change to a
run goes through this service one at a time. Runs execute in the v2
:class:`~svc.automations.pool.RunPool`; a run interrupted by a shutdown or a
crash resumes at the next start from its completed nodes.

Every lifecycle event is published on topic ``automations/v2`` and carries
``runID`` and ``automationID``: ``automation.v2.run.created``, ``run.started``,
``run.step`` (``phase``: node_started, node_completed, node_failed,
node_skipped, gate_decided), ``approval.required``, and exactly one of
``run.completed``, ``run.failed`` or ``run.cancelled`` at the end.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ...errors import Conflict, Forbidden, ValidationFailed
from ..governance import Governance
from ..pool import RunPool
from ..principal import HUMAN, Principal
from ..scheduler.journal import JournalRow
from ..scheduler.signal import ScheduleEntry, ScheduleSignal
from .repository import V2Repository

if TYPE_CHECKING:
    from ...engine import Engine
    from ..scheduler.schedule import MisfirePolicy
    from ..scheduler.timing import FirePlan
    from .executor import V2Execution
    from .records import AutomationV2, AutomationV2Run

# The spec parser, the records, the schedule math and the executor are imported on first
# use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").

log = logging.getLogger("svc.automations")

TOPIC = "automations/v2"
BUSY_STATUSES = frozenset({"queued", "running", "awaiting_approval"})
CANCEL_WAIT_S = 30.0


class V2Service:
    def __init__(
        self,
        engine: Engine,
        repo: V2Repository,
        governance: Governance,
        pool: RunPool,
        signal: ScheduleSignal,
    ) -> None:
        self.engine = engine
        self.repo = repo
        self.governance = governance
        self.pool = pool
        self.signal = signal
        self._automations: dict[str, AutomationV2] = {}
        self._live: dict[str, AutomationV2Run] = {}
        self._executions: dict[str, V2Execution] = {}
        self._done: dict[str, trio.Event] = {}
        self._busy: Counter[str] = Counter()
        self._journaled: set[str] = set()
        """Automations with a journaled fire not yet materialized (busy for the scheduler)."""
        self._recovered: list[AutomationV2Run] = []
        """Runs materialized from the journal at start-up, announced by :meth:`start_pending`."""

    # ------------------------------------------------------------------ plumbing
    def now_ms(self) -> int:
        return self.engine.clock.now_ms()

    def publish(self, type: str, record: AutomationV2Run, /, **properties: Any) -> None:
        self.engine.events.publish(
            type,
            {"runID": record.run_id, "automationID": record.automation_id, **properties},
            topic=TOPIC,
        )

    def directory_for(self, spec: Mapping[str, Any]) -> Path | None:
        root = spec.get("workspace_root")
        if isinstance(root, str) and Path(root).is_dir():
            return Path(root)
        return None

    async def store_run(self, run: AutomationV2Run) -> None:
        """Persist ``run`` and keep the in-memory view (and the scheduler's busy marks) in step."""
        before = self._live.get(run.run_id)
        was_busy = before is not None and before.status in BUSY_STATUSES
        is_busy = run.status in BUSY_STATUSES
        if run.terminal:
            self._live.pop(run.run_id, None)
        else:
            self._live[run.run_id] = run
        if was_busy != is_busy:
            self._busy[run.automation_id] += 1 if is_busy else -1
            if self._busy[run.automation_id] <= 0:
                del self._busy[run.automation_id]
                self.signal.changed("v2", run.automation_id)
        await self.repo.save_run(run)

    # ------------------------------------------------------------------ start-up
    async def load(self) -> None:
        for automation in await self.repo.all():
            self._automations[automation.automation_id] = automation
        # Runs a stopped engine left running resume from their completed nodes.
        for run in await self.repo.runs(statuses=("running",), limit=100_000):
            nodes = {
                k: (attrs.evolve(n, status="pending") if n.status == "running" else n)
                for k, n in run.nodes.items()
            }
            run = attrs.evolve(
                run,
                status="queued",
                nodes=nodes,
                updated_at_ms=self.now_ms(),
                detail="resumed after an engine restart",
            )
            await self.repo.save_run(run)
        for run in await self.repo.runs(statuses=("queued", "awaiting_approval"), limit=100_000):
            self._live[run.run_id] = run
            self._busy[run.automation_id] += 1

    def start_pending(self) -> None:
        """Submit every queued run (at start-up, once the pool exists)."""
        recovered, self._recovered = self._recovered, []
        for run in recovered:
            # Never announced by the process that journaled them.
            self._announce_scheduled(run)
        for run in sorted(self._live.values(), key=lambda r: r.created_at_ms):
            if run.status == "queued":
                self._submit(run.run_id)

    # ------------------------------------------------------------------ definitions
    async def create(
        self, body: Mapping[str, Any], *, principal: Principal = HUMAN
    ) -> AutomationV2:
        from ..scheduler.timing import first_fire_at
        from .records import AutomationV2
        from .spec import parse_definition

        definition = parse_definition(body, workspace=self.engine.workspace)
        await self.governance.authorize_create(principal, definition.spec)
        automation_id = definition.automation_id or f"automation-v2-{uuid.uuid4()}"
        if automation_id in self._automations:
            raise Conflict(
                f"automation `{automation_id}` already exists",
                code="AUTOMATION_V2_EXISTS",
                automationID=automation_id,
            )
        now = self.now_ms()
        creator_id = principal.agent_id if principal.is_agent else (definition.creator_id or "user")
        automation = AutomationV2(
            automation_id=automation_id,
            name=definition.spec["name"],
            status=definition.status,
            spec=definition.spec,
            created_at_ms=now,
            updated_at_ms=now,
            creator_kind=principal.kind,
            creator_id=creator_id,
            provenance=principal.provenance(),
            next_fire_at_ms=first_fire_at(definition.schedule, now)
            if definition.status == "active"
            else None,
        )
        if principal.is_agent:
            await self.repo.save_agent_created(automation)
        else:
            await self.repo.save(automation)
        self._automations[automation_id] = automation
        self.signal.changed("v2", automation_id)
        self.engine.events.publish(
            "automation.v2.created",
            {
                "automationID": automation_id,
                "name": automation.name,
                "status": automation.status,
                "creatorType": principal.kind,
                "creatorID": creator_id,
            },
            topic=TOPIC,
        )
        return automation

    async def get(self, automation_id: str) -> AutomationV2 | None:
        return self._automations.get(automation_id)

    def require(self, automation_id: str) -> AutomationV2:
        from ..errors import AutomationV2NotFound

        automation = self._automations.get(automation_id)
        if automation is None:
            raise AutomationV2NotFound(
                f"automation `{automation_id}` not found", automationID=automation_id
            )
        return automation

    def list(self, *, status: str | None = None) -> list[AutomationV2]:
        found = sorted(self._automations.values(), key=lambda a: (a.created_at_ms, a.automation_id))
        return [a for a in found if status is None or a.status == status]

    async def patch(
        self, automation_id: str, body: Mapping[str, Any], *, principal: Principal = HUMAN
    ) -> AutomationV2:
        from ..scheduler.timing import first_fire_at
        from .spec import CODE, canonical_spec, schedule_of

        current = self.require(automation_id)
        if not isinstance(body, Mapping):
            raise ValidationFailed("request body must be a JSON object", field="$", code=CODE)
        merged: dict[str, Any] = dict(current.spec)
        for key, value in body.items():
            if key in (
                "automation_id",
                "created_at_ms",
                "updated_at_ms",
                "creator_id",
                "creator_type",
                "definition_hash",
                "next_fire_at_ms",
                "last_fired_at_ms",
            ):
                continue
            if key == "status":
                continue
            if key == "capabilities":
                metadata = dict(merged.get("metadata") or {})
                metadata["capabilities"] = {
                    **(metadata.get("capabilities") or {}),
                    **{k: bool(v) for k, v in (value or {}).items()},
                }
                merged["metadata"] = metadata
                continue
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        spec = canonical_spec(merged, workspace=self.engine.workspace)
        status = body.get("status", current.status)
        if status not in ("active", "paused", "draft", "retired"):
            raise ValidationFailed(
                "`status` must be one of active, paused, draft, retired", field="status", code=CODE
            )
        await self.governance.authorize_mutation(principal, current, new_spec=spec)
        now = self.now_ms()
        schedule, _ = schedule_of(spec)
        next_fire = current.next_fire_at_ms
        if status != "active":
            next_fire = None
        elif (
            current.status != "active"
            or spec.get("schedule") != current.spec.get("schedule")
            or next_fire is None
        ):
            next_fire = first_fire_at(schedule, now)
        updated = attrs.evolve(
            current,
            name=spec["name"],
            status=status,
            spec=spec,
            updated_at_ms=now,
            next_fire_at_ms=next_fire,
        )
        await self.repo.save(updated)
        self._automations[automation_id] = updated
        self.signal.changed("v2", automation_id)
        self.engine.events.publish(
            "automation.v2.updated",
            {"automationID": automation_id, "status": status, "nextFireAtMs": next_fire},
            topic=TOPIC,
        )
        return updated

    async def delete(self, automation_id: str, *, principal: Principal = HUMAN) -> AutomationV2:
        current = self.require(automation_id)
        await self.governance.authorize_mutation(principal, current, delete=True)
        await self.repo.delete(automation_id)
        self._automations.pop(automation_id, None)
        self.signal.changed("v2", automation_id)
        self.engine.events.publish(
            "automation.v2.deleted", {"automationID": automation_id}, topic=TOPIC
        )
        return current

    # ------------------------------------------------------------------ runs
    def new_run(
        self,
        automation: AutomationV2,
        *,
        run_id: str | None,
        trigger_type: str,
        trigger_reason: str,
        context: Mapping[str, Any] | None,
        snapshot: Mapping[str, Any] | None,
    ) -> AutomationV2Run:
        from .records import AutomationV2Run, NodeState, definition_hash
        from .spec import canonical_spec
        from .tools import run_allowed_tools

        spec = (
            canonical_spec(snapshot, workspace=self.engine.workspace)
            if snapshot is not None
            else automation.spec
        )
        now = self.now_ms()
        nodes = {
            n["node_id"]: NodeState(n["node_id"], n["agent_id"]) for n in spec["flow"]["nodes"]
        }
        return AutomationV2Run(
            run_id=run_id or f"automation-v2-run-{uuid.uuid4()}",
            automation_id=automation.automation_id,
            status="queued",
            trigger_type=trigger_type,
            trigger_reason=trigger_reason,
            created_at_ms=now,
            updated_at_ms=now,
            snapshot=spec,
            definition_hash=definition_hash(spec),
            nodes=nodes,
            allowed_tools=run_allowed_tools(spec),
            context=dict(context or {}),
        )

    async def create_run(
        self,
        automation_id: str,
        *,
        run_id: str | None = None,
        trigger_type: str = "manual",
        trigger_reason: str = "",
        context: Mapping[str, Any] | None = None,
        snapshot: Mapping[str, Any] | None = None,
        dry_run: bool = False,
    ) -> AutomationV2Run:
        from .spec import CODE

        automation = self.require(automation_id)
        if run_id is not None:
            existing = await self.get_run(run_id)
            if existing is not None:
                if existing.automation_id != automation_id:
                    raise Conflict(
                        f"run `{run_id}` belongs to automation `{existing.automation_id}`",
                        code="AUTOMATION_V2_RUN_EXISTS",
                        runID=run_id,
                    )
                return existing  # the same request again: idempotent
        if context is not None and not isinstance(context, Mapping):
            raise ValidationFailed("`context` must be an object", field="context", code=CODE)
        run = self.new_run(
            automation,
            run_id=run_id,
            trigger_type="manual_dry_run" if dry_run else trigger_type,
            trigger_reason=trigger_reason,
            context=context,
            snapshot=snapshot,
        )
        if dry_run:
            nodes = {
                k: attrs.evolve(n, status="skipped", error="dry run") for k, n in run.nodes.items()
            }
            run = attrs.evolve(
                run,
                status="completed",
                nodes=nodes,
                started_at_ms=run.created_at_ms,
                finished_at_ms=run.created_at_ms,
                detail="dry run: nothing was executed",
            )
        await self.store_run(run)
        self.publish(
            "automation.v2.run.created",
            run,
            status=run.status,
            triggerType=run.trigger_type,
            dryRun=dry_run,
            run=run.to_wire(),
        )
        if not dry_run:
            self._submit(run.run_id)
        return run

    async def get_run(self, run_id: str) -> AutomationV2Run | None:
        live = self._live.get(run_id)
        if live is not None:
            return live
        return await self.repo.get_run(run_id)

    async def list_runs(
        self, *, automation_id: str | None = None, limit: int = 50
    ) -> list[AutomationV2Run]:
        return await self.repo.runs(automation_id=automation_id, limit=limit)

    async def cancel_run(self, run_id: str, reason: str = "cancelled") -> bool:
        """Cancel a run that has not ended; False if it already ended (or does not exist)."""
        run = await self.get_run(run_id)
        if run is None or run.terminal:
            return False
        execution = self._executions.get(run_id)
        if execution is not None:
            execution.cancel(reason)
            done = self._done.get(run_id)
            if done is not None:
                # Bounded: the nodes' session runs stop at their next checkpoint.
                with trio.move_on_after(CANCEL_WAIT_S):
                    await done.wait()
            return True
        now = self.now_ms()
        nodes = {
            k: (
                attrs.evolve(n, status="cancelled", error=reason)
                if n.status in ("pending", "running", "awaiting_approval")
                else n
            )
            for k, n in run.nodes.items()
        }
        run = attrs.evolve(
            run,
            status="cancelled",
            nodes=nodes,
            finished_at_ms=now,
            updated_at_ms=now,
            stop_reason=reason,
            detail=reason,
            awaiting_gate=None,
        )
        await self.store_run(run)
        self.publish("run.cancelled", run, status="cancelled", reason=reason, finishedAtMs=now)
        return True

    def _submit(self, run_id: str) -> None:
        self._done.setdefault(run_id, trio.Event())
        self.pool.submit(lambda: self._execute(run_id))

    async def _execute(self, run_id: str) -> None:
        try:
            from .executor import V2Execution

            run = self._live.get(run_id)
            if run is None or run.status != "queued":
                return  # cancelled (or already handled) while it waited
            async with self.pool.limiter:
                run = self._live.get(run_id)
                if run is None or run.status != "queued":
                    return  # cancelled while it waited for a slot
                execution = V2Execution(self, run)
                self._executions[run_id] = execution
                try:
                    await execution.execute()
                finally:
                    self._executions.pop(run_id, None)
        finally:
            done = self._done.pop(run_id, None)
            if done is not None:
                done.set()

    # ------------------------------------------------------------------ gates
    async def decide_gate(
        self, run_id: str, decision: str, *, reason: str | None = None, principal: Principal = HUMAN
    ) -> AutomationV2Run:
        from ..errors import AutomationV2RunNotFound
        from .dag import descendants
        from .executor import is_gate
        from .records import NodeState
        from .spec import effective_deps

        if principal.is_agent:
            raise Forbidden(
                "gate decisions require a human actor", code="AUTOMATION_V2_GATE_REQUIRES_HUMAN"
            )
        run = await self.get_run(run_id)
        if run is None:
            raise AutomationV2RunNotFound(f"run `{run_id}` not found", runID=run_id)
        if run.status != "awaiting_approval" or not run.awaiting_gate:
            last = run.gate_history[-1]["decision"] if run.gate_history else None
            raise Conflict(
                f"run `{run_id}` is not awaiting approval (status {run.status})",
                code="AUTOMATION_V2_RUN_NOT_AWAITING_APPROVAL",
                runID=run_id,
                runStatus=run.status,
                winningDecision=last,
            )
        gate = run.awaiting_gate
        node_id = gate["node_id"]
        if decision not in gate.get("decisions", ()):
            raise ValidationFailed(
                f"`decision` must be one of {', '.join(gate.get('decisions', ()))}",
                field="decision",
            )
        now = self.now_ms()
        note = (reason or "").strip() or f"{decision} by operator"
        spec_nodes = {n["node_id"]: n for n in run.snapshot["flow"]["nodes"]}
        deps = {n: effective_deps(spec_nodes[n]) for n in spec_nodes}
        entry: dict[str, Any] = {
            "node_id": node_id,
            "decision": decision,
            "reason": note,
            "decided_at_ms": now,
            "decided_by": principal.kind,
        }
        state = run.nodes[node_id]
        if decision == "approve":
            run = run.with_node(
                attrs.evolve(
                    state,
                    status="completed",
                    decision="approve",
                    finished_at_ms=now,
                    output=f"Approved: {note}",
                )
            )
        elif decision == "rework":
            targets = list(gate.get("rework_targets") or ()) or [
                d for d in deps[node_id] if not is_gate(spec_nodes[d])
            ]
            reset = set(targets) | descendants(deps, targets)
            for reset_id in reset:
                run = run.with_node(NodeState(reset_id, run.nodes[reset_id].agent_id))
            entry["reset_nodes"] = sorted(reset)
        else:
            run = run.with_node(
                attrs.evolve(
                    state, status="cancelled", decision="cancel", finished_at_ms=now, error=note
                )
            )
        run = attrs.evolve(
            run, gate_history=(*run.gate_history, entry), awaiting_gate=None, updated_at_ms=now
        )
        if decision == "cancel":
            nodes = {
                k: (attrs.evolve(n, status="cancelled", error=note) if n.status == "pending" else n)
                for k, n in run.nodes.items()
            }
            run = attrs.evolve(
                run,
                nodes=nodes,
                status="cancelled",
                finished_at_ms=now,
                stop_reason="gate_cancelled",
                detail=note,
            )
            await self.store_run(run)
            self.publish(
                "run.step",
                run,
                phase="gate_decided",
                nodeID=node_id,
                decision=decision,
                reason=note,
            )
            self.publish("run.cancelled", run, status="cancelled", reason=note, finishedAtMs=now)
            return run
        run = attrs.evolve(run, status="queued")
        await self.store_run(run)
        self.publish(
            "run.step",
            run,
            phase="gate_decided",
            nodeID=node_id,
            decision=decision,
            reason=note,
            resetNodes=entry.get("reset_nodes"),
        )
        self._submit(run.run_id)
        return run

    # ------------------------------------------------------------------ scheduling
    def schedule_entries(self) -> list[ScheduleEntry]:
        return [e for e in (self.entry(a) for a in self._automations) if e is not None]

    def entry(self, automation_id: str) -> ScheduleEntry | None:
        from .spec import schedule_of

        automation = self._automations.get(automation_id)
        if (
            automation is None
            or automation.status != "active"
            or automation.next_fire_at_ms is None
        ):
            return None
        schedule, misfire = schedule_of(automation.spec)
        if schedule.kind == "manual":
            return None
        return ScheduleEntry("v2", automation_id, schedule, misfire, automation.next_fire_at_ms)

    def busy(self, automation_id: str) -> bool:
        return self._busy.get(automation_id, 0) > 0 or automation_id in self._journaled

    def held(self, automation_ids: list[str]) -> set[str]:
        return set(filter(self.busy, automation_ids))

    def missed_reason(self, misfire: MisfirePolicy, plan: FirePlan) -> str:
        return f"misfire: {plan.due} due"

    def journaled(self, row: JournalRow) -> None:
        """A tick's decisions are committed: the fire times move now, the runs come with :meth:`materialize`."""
        for automation_id, slots, next_fire, _reason in row.decisions:
            automation = self._automations.get(automation_id)
            if automation is None:
                continue  # deleted while the decision was being committed
            last = slots[-1] if slots else automation.last_fired_at_ms
            self._automations[automation_id] = attrs.evolve(
                automation, next_fire_at_ms=next_fire, last_fired_at_ms=last
            )
            self._journaled.add(automation_id)

    async def materialize(self, row: JournalRow, *, recovering: bool) -> None:
        """The runs of a journal row, the fire times and the row's deletion in one transaction; then start them."""
        moved: list[AutomationV2] = []
        runs: list[AutomationV2Run] = []
        for automation_id, slots, _next, reason in row.decisions:
            automation = self._automations.get(automation_id)
            if automation is None:
                continue  # deleted since the decision: nothing to run
            moved.append(automation)  # its fire times already account for the row
            for slot in slots:
                trigger_reason = f"scheduled for {slot}" + (f" ({reason})" if reason else "")
                run = self.new_run(
                    automation,
                    run_id=None,
                    trigger_type="scheduled",
                    trigger_reason=trigger_reason,
                    context=None,
                    snapshot=None,
                )
                runs.append(attrs.evolve(run, context={"scheduled_at_ms": slot}))
        await self.repo.materialize(row.seq, moved, runs)
        # No checkpoint from the commit to the end: memory always agrees with the store.
        for run in runs:
            self._live[run.run_id] = run
            self._busy[run.automation_id] += 1
        for automation_id, *_ in row.decisions:
            self._journaled.discard(automation_id)
            if not self.busy(automation_id):
                self.signal.changed("v2", automation_id)
        if recovering:
            self._recovered.extend(runs)  # announced and submitted by start_pending
            return
        for run in runs:
            self._announce_scheduled(run)
            self._submit(run.run_id)

    def _announce_scheduled(self, run: AutomationV2Run) -> None:
        self.publish(
            "automation.v2.run.created",
            run,
            status=run.status,
            triggerType="scheduled",
            scheduledAtMs=run.context.get("scheduled_at_ms"),
        )


__all__ = ["BUSY_STATUSES", "TOPIC", "V2Service"]
