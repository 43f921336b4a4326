"""Drive a workflow run: its actions in order, pausing at approval gates.

Every state change is saved before it is announced (``workflow.*`` events on
topic ``workflows``), so a client reading the run after an event sees at least
that state. Cancellation of the task driving a run is the caller's business
(:mod:`svc.workflows.runner` turns its own cancel into a ``cancelled`` run); the
work of each action is done by :mod:`svc.workflows.action_performer`, which
cancels an agent session run or automation run an action started along with it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .repository import WorkflowRepository
from .run_events import TOPIC, event_base

if TYPE_CHECKING:
    from ..engine import Engine
    from .action_performer import ActionPerformer
    from .runs import ActionRun, PendingGate, WorkflowRun

# The action parser, its performer, the run records and the session requests are imported by
# the first run: start-up on a fresh store drives none (docs/architecture.md, "Start-up
# budget").


class WorkflowExecutor:
    def __init__(self, engine: Engine, repo: WorkflowRepository) -> None:
        self.engine = engine
        self.repo = repo
        self.on_gate: Callable[[PendingGate], None] = lambda _gate: None
        """Called when a run pauses at a gate (the gate-expiry watcher re-plans its wake-up)."""
        self._performer: ActionPerformer | None = None

    # ------------------------------------------------------------ plumbing
    def now(self) -> int:
        return self.engine.clock.now_ms()

    def publish(self, type: str, run: WorkflowRun, **extra: Any) -> None:
        self.engine.events.publish(type, {**event_base(run), **extra}, topic=TOPIC)

    async def save(self, run: WorkflowRun, **changes: Any) -> WorkflowRun:
        run = attrs.evolve(run, updated_at_ms=self.now(), **changes)
        await self.repo.save_run(run)
        return run

    async def save_action(self, run: WorkflowRun, action: ActionRun, **changes: Any) -> WorkflowRun:
        updated = attrs.evolve(action, updated_at_ms=self.now(), **changes)
        return await self.save(run.with_action(updated))

    def performer(self) -> ActionPerformer:
        """What performs each action (built by the first run)."""
        if self._performer is None:
            from .action_performer import ActionPerformer

            self._performer = ActionPerformer(self.engine, self.repo, self.save)
        return self._performer

    # ------------------------------------------------------------ the loop
    async def drive(self, run: WorkflowRun) -> WorkflowRun:
        """Run every action not yet completed; return the run paused, completed or failed."""
        from .action_performer import ActionFailed
        from .actions import ActionInvalid, parse_action

        if run.status != "running":
            run = await self.save(run, status="running")
            self.publish(
                "workflow.run.started",
                run,
                triggerType=run.trigger_type,
                triggerEvent=run.trigger_event,
                sourceEventID=run.source_event_id,
                dryRun=False,
            )
        for action in run.actions:
            current = run.action(action.action_id) or action
            if current.status in ("completed", "skipped"):
                continue
            try:
                parsed = parse_action(current.action)
            except ActionInvalid as exc:
                return await self.fail(run, current, str(exc))
            if parsed.kind == "approval_gate":
                return await self.pause_at_gate(run, current)
            run = await self.save_action(run, current, status="running", detail=None, output=None)
            self.publish(
                "workflow.action.started", run, actionID=current.action_id, action=current.action
            )
            try:
                output = await self.performer().execute(run, current, parsed)
            except ActionFailed as exc:
                run = await self.refresh_links(run)
                return await self.fail(run, run.action(current.action_id) or current, str(exc))
            run = await self.refresh_links(run)
            run = await self.save_action(
                run,
                run.action(current.action_id) or current,
                status="completed",
                output=output,
                detail=None,
            )
            self.publish(
                "workflow.action.completed",
                run,
                actionID=current.action_id,
                action=current.action,
                output=output,
            )
        run = await self.save(
            run, status="completed", finished_at_ms=self.now(), awaiting_gate=None
        )
        self.publish("workflow.run.completed", run)
        return run

    async def refresh_links(self, run: WorkflowRun) -> WorkflowRun:
        """Pick up the automation run id an action recorded while it ran."""
        if run.automation_id is None:
            return run
        stored = await self.repo.get_run(run.run_id)
        if stored is None or stored.automation_run_id == run.automation_run_id:
            return run
        return attrs.evolve(run, automation_run_id=stored.automation_run_id)

    async def fail(self, run: WorkflowRun, action: ActionRun, detail: str) -> WorkflowRun:
        run = run.with_action(
            attrs.evolve(action, status="failed", detail=detail, updated_at_ms=self.now())
        )
        run = await self.save(run, status="failed", finished_at_ms=self.now(), detail=detail)
        self.publish(
            "workflow.action.failed",
            run,
            actionID=action.action_id,
            action=action.action,
            error=detail,
        )
        self.publish("workflow.run.failed", run, actionID=action.action_id, error=detail)
        return run

    async def pause_at_gate(self, run: WorkflowRun, action: ActionRun) -> WorkflowRun:
        gate = self.gate_for(run, action)
        run = run.with_action(
            attrs.evolve(
                action, status="pending", detail="awaiting human approval", updated_at_ms=self.now()
            )
        )
        run = await self.save(run, status="awaiting_approval", awaiting_gate=gate)
        self.on_gate(gate)
        self.publish(
            "workflow.run.awaiting_approval",
            run,
            actionID=action.action_id,
            title=gate.title,
            instructions=gate.instructions,
            decisions=list(gate.decisions),
            expiresAtMs=gate.expires_at_ms,
        )
        return run

    def gate_for(self, run: WorkflowRun, action: ActionRun) -> PendingGate:
        from .actions import GATE_DECISIONS
        from .runs import PendingGate

        spec = action.with_ if isinstance(action.with_, Mapping) else {}
        targets = tuple(t for t in spec.get("rework_targets") or () if isinstance(t, str))
        decisions = tuple(d for d in spec.get("decisions") or () if d in GATE_DECISIONS)
        if not decisions:
            decisions = ("approve", "rework", "cancel") if targets else ("approve", "cancel")
        if not targets:
            # Never offer a decision the decide endpoint would refuse.
            decisions = tuple(d for d in decisions if d != "rework")
        now = self.now()
        ttl = self.engine.settings.workflow_gate_ttl_ms
        return PendingGate(
            action_id=action.action_id,
            decisions=decisions,
            rework_targets=targets,
            requested_at_ms=now,
            expires_at_ms=now + ttl,
            nonce=uuid.uuid4().hex,
            title=spec.get("title") if isinstance(spec.get("title"), str) else None,
            instructions=spec.get("instructions")
            if isinstance(spec.get("instructions"), str)
            else None,
        )


__all__ = ["WorkflowExecutor"]
