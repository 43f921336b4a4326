"""Approval gates: a human decides a paused run, or the gate expires undecided.

A run pauses at an ``approval_gate`` action with a :class:`~svc.workflows.runs.PendingGate`
(its decisions, its rework targets, a nonce and an expiry). :meth:`ApprovalGates.decide`
applies one decision exactly once (the nonce guards the replace, so a replayed decision is
refused) and resumes or cancels the run; :meth:`ApprovalGates.run_expiry` cancels runs whose
gate expired undecided.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import attrs
import trio

from .errors import (
    GateExpired,
    GateInvalidDecision,
    GateReplayed,
    GateRequiresHuman,
    RunNotAwaitingApproval,
    WorkflowRunNotFound,
)
from .executor import WorkflowExecutor
from .repository import WorkflowRepository
from .runner import WorkflowRunner

if TYPE_CHECKING:
    from ..engine import Engine
    from .requester import Requester
    from .runs import GateDecision, WorkflowRun

# The run records are imported by the first decision: start-up on a fresh store decides none
# (docs/architecture.md, "Start-up budget").


class ApprovalGates:
    def __init__(
        self,
        engine: Engine,
        repo: WorkflowRepository,
        executor: WorkflowExecutor,
        runner: WorkflowRunner,
    ) -> None:
        self.engine = engine
        self.repo = repo
        self.executor = executor
        self.runner = runner
        self._changed = trio.Event()
        self.executor.on_gate = lambda _gate: self._changed.set()

    async def decide(
        self, run_id: str, decision: str, *, reason: str | None, requester: Requester
    ) -> WorkflowRun:
        from .runs import GateDecision

        run = await self.repo.get_run(run_id)
        if run is None:
            raise WorkflowRunNotFound(f"workflow run `{run_id}` not found", runID=run_id)
        if not requester.is_human:
            raise GateRequiresHuman(runID=run_id, requester=requester.to_wire())
        gate = run.awaiting_gate
        if run.status != "awaiting_approval" or gate is None:
            last = run.gate_history[-1].to_wire() if run.gate_history else None
            raise RunNotAwaitingApproval(runID=run_id, currentStatus=run.status, decidedGate=last)
        decision = decision.strip().lower()
        if decision not in gate.decisions:
            raise GateInvalidDecision(
                f"decision must be one of {', '.join(gate.decisions)}",
                field="decision",
                decisions=list(gate.decisions),
            )
        now = self.engine.clock.now_ms()
        if now >= gate.expires_at_ms:
            await self._expire(run)
            raise GateExpired(runID=run_id, expiresAtMs=gate.expires_at_ms)
        record = GateDecision(
            action_id=gate.action_id,
            decision=decision,
            decided_at_ms=now,
            nonce=gate.nonce,
            reason=reason,
            decided_by=requester.to_wire(),
        )
        updated = apply_decision(run, record, gate.rework_targets, now)
        if not await self.repo.replace_run_if(
            updated, status="awaiting_approval", nonce=gate.nonce
        ):
            raise GateReplayed(runID=run_id)
        self.executor.publish(
            "workflow.gate.decided",
            updated,
            actionID=gate.action_id,
            decision=decision,
            reason=reason,
            decidedBy=requester.to_wire(),
        )
        if updated.status == "cancelled":
            self.executor.publish(
                "workflow.run.cancelled", updated, reason=reason or "gate cancelled"
            )
        else:
            self.executor.publish(
                "workflow.run.resumed", updated, actionID=gate.action_id, decision=decision
            )
            self.runner.submit(updated)
        return updated

    async def _expire(self, run: WorkflowRun) -> None:
        now = self.engine.clock.now_ms()
        expired = attrs.evolve(
            run,
            status="cancelled",
            finished_at_ms=now,
            updated_at_ms=now,
            awaiting_gate=None,
            detail="the approval gate expired before a decision",
        )
        if await self.repo.replace_run_if(expired, status="awaiting_approval"):
            self.executor.publish("workflow.run.cancelled", expired, reason="gate_expired")

    async def run_expiry(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Cancel runs whose approval gate expired undecided (a long-running child of the engine).

        It sleeps until the earliest pending expiry, or until a new gate opens.
        """
        task_status.started()
        clock = self.engine.clock
        while True:
            changed = self._changed = trio.Event()
            waiting = await self.repo.list_runs(status="awaiting_approval", limit=100_000)
            now = clock.now_ms()
            upcoming = []
            for run in waiting:
                gate = run.awaiting_gate
                if gate is None:
                    continue
                if now >= gate.expires_at_ms:
                    await self._expire(run)
                else:
                    upcoming.append(gate.expires_at_ms)
            deadline = clock.to_trio_time(min(upcoming)) if upcoming else math.inf
            with trio.move_on_at(deadline):
                await changed.wait()


def apply_decision(
    run: WorkflowRun, record: GateDecision, targets: tuple[str, ...], now: int
) -> WorkflowRun:
    """``run`` after the gate decision ``record``: resumed (approve, rework) or cancelled."""
    history = (*run.gate_history, record)
    if record.decision == "approve":
        actions = tuple(
            attrs.evolve(
                a,
                status="completed",
                detail="gate approved",
                output={"decision": "approve", "reason": record.reason},
                updated_at_ms=now,
            )
            if a.action_id == record.action_id
            else a
            for a in run.actions
        )
        return attrs.evolve(
            run,
            status="running",
            awaiting_gate=None,
            gate_history=history,
            actions=actions,
            updated_at_ms=now,
        )
    if record.decision == "rework":
        actions = tuple(
            attrs.evolve(
                a,
                status="pending",
                detail="re-queued by gate rework",
                output=None,
                updated_at_ms=now,
            )
            if a.action_id in targets
            else a
            for a in run.actions
        )
        return attrs.evolve(
            run,
            status="running",
            awaiting_gate=None,
            gate_history=history,
            actions=actions,
            updated_at_ms=now,
        )
    actions = tuple(
        attrs.evolve(a, status="skipped", detail="gate cancelled", updated_at_ms=now)
        if a.status in ("pending", "running")
        else a
        for a in run.actions
    )
    return attrs.evolve(
        run,
        status="cancelled",
        awaiting_gate=None,
        gate_history=history,
        actions=actions,
        finished_at_ms=now,
        updated_at_ms=now,
        detail="cancelled at the approval gate",
    )


__all__ = ["ApprovalGates", "apply_decision"]
