"""Automation v2 runs: start-up recovery, creating, reading, cancelling and executing runs."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ...errors import Conflict, ValidationFailed
from .definitions import V2Definitions
from .state import BUSY_STATUSES, CANCEL_WAIT_S

if TYPE_CHECKING:
    from .records import AutomationV2, AutomationV2Run

# The spec parser, the records, the schedule math and the executor are imported on first
# use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").


class V2Runs(V2Definitions):
    async def load(self) -> None:
        for automation in await self.repo.all():
            self._automations[automation.automation_id] = automation
        # Runs a stopped engine left running resume from their completed nodes.
        # Replicas sharing a store leave them to claims instead: a run "running"
        # may be running on another replica, and resumes only once its claim expired.
        left_running = (
            []
            if self.engine.cluster.shared
            else await self.repo.runs(statuses=("running",), limit=100_000)
        )
        for run in left_running:
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
        if self.claims is not None:
            self.claims.wake()  # whichever replica claims them runs them
            return
        for run in sorted(self._live.values(), key=lambda r: r.created_at_ms):
            if run.status == "queued":
                self._submit(run.run_id)

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
        if live is not None and (self.claims is None or run_id in self._executions):
            return live
        # Replicas on one store: a run executing elsewhere is as the store has it.
        return await self.repo.get_run(run_id) or live

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
        if self.claims is not None:
            self.claims.wake()  # stored as queued: the replica that claims it runs it
            return
        self.pool.submit(lambda: self._execute(run_id))

    async def adopt_claimed(self, run: AutomationV2Run) -> None:
        """Replicas on one store: ``run`` was claimed here; track it before it executes."""
        current = self._live.get(run.run_id)
        if current is None or current.status != run.status or run.nodes != current.nodes:
            # Another replica's run (or one resumed here): record it through
            # store_run, which keeps the busy marks in step.
            await self.store_run(run)

    def forget_settled(self, run_id: str, *, cancelled: str | None = None) -> None:
        """Replicas on one store: a run tracked here ended on another replica.

        ``cancelled`` (the reason): it was cancelled there; if it executes here,
        it stops (a cancel reaches the run on whichever replica claimed it).
        """
        execution = self._executions.get(run_id)
        if execution is not None:
            if cancelled is not None:
                execution.cancel(cancelled)
            return  # it ends here, through store_run
        run = self._live.pop(run_id, None)
        if run is not None and run.status in BUSY_STATUSES:
            self._busy[run.automation_id] -= 1
            if self._busy[run.automation_id] <= 0:
                del self._busy[run.automation_id]
                self.signal.changed("v2", run.automation_id)
        done = self._done.pop(run_id, None)
        if done is not None:
            done.set()

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

    def _announce_scheduled(self, run: AutomationV2Run) -> None:
        self.publish(
            "automation.v2.run.created",
            run,
            status=run.status,
            triggerType="scheduled",
            scheduledAtMs=run.context.get("scheduled_at_ms"),
        )


__all__ = ["V2Runs"]
