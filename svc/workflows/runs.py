"""Workflow run records: a run, its actions, its approval gate and the gate's decisions.

A run snapshots the actions it executes (action string and ``with``) when it is
created, so a gate decided an hour later resumes exactly the work that was
approved even if the YAML changed in between.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

RunStatus = Literal[
    "queued", "running", "awaiting_approval", "completed", "failed", "cancelled", "dry_run"
]
ActionStatus = Literal["pending", "running", "completed", "failed", "skipped"]
TriggerType = Literal["manual", "hook"]

TERMINAL_RUN_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled", "dry_run"})


@attrs.frozen
class ActionRun:
    action_id: str
    action: str
    with_: Any = None
    status: ActionStatus = "pending"
    detail: str | None = None
    output: Any = None
    updated_at_ms: int = 0

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "action_id": self.action_id,
            "action": self.action,
            "status": self.status,
            "updated_at_ms": self.updated_at_ms,
        }
        if self.with_ is not None:
            wire["with"] = self.with_
        if self.detail is not None:
            wire["detail"] = self.detail
        if self.output is not None:
            wire["output"] = self.output
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ActionRun:
        return cls(
            action_id=data["action_id"],
            action=data["action"],
            with_=data.get("with"),
            status=data.get("status", "pending"),
            detail=data.get("detail"),
            output=data.get("output"),
            updated_at_ms=data.get("updated_at_ms", 0),
        )


@attrs.frozen
class PendingGate:
    """An approval gate holding a run (durable: it survives restarts)."""

    action_id: str
    decisions: tuple[str, ...]
    rework_targets: tuple[str, ...]
    requested_at_ms: int
    expires_at_ms: int
    nonce: str
    title: str | None = None
    instructions: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "action_id": self.action_id,
            "decisions": list(self.decisions),
            "rework_targets": list(self.rework_targets),
            "requested_at_ms": self.requested_at_ms,
            "expires_at_ms": self.expires_at_ms,
            "nonce": self.nonce,
        }
        if self.title is not None:
            wire["title"] = self.title
        if self.instructions is not None:
            wire["instructions"] = self.instructions
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> PendingGate:
        return cls(
            action_id=data["action_id"],
            decisions=tuple(data.get("decisions", ())),
            rework_targets=tuple(data.get("rework_targets", ())),
            requested_at_ms=data["requested_at_ms"],
            expires_at_ms=data.get("expires_at_ms", 0),
            nonce=data.get("nonce", ""),
            title=data.get("title"),
            instructions=data.get("instructions"),
        )


@attrs.frozen
class GateDecision:
    action_id: str
    decision: str
    decided_at_ms: int
    nonce: str
    reason: str | None = None
    decided_by: Mapping[str, Any] = attrs.field(factory=dict)

    def to_wire(self) -> dict[str, Any]:
        return {
            "action_id": self.action_id,
            "decision": self.decision,
            "reason": self.reason,
            "decided_at_ms": self.decided_at_ms,
            "nonce": self.nonce,
            "decided_by": dict(self.decided_by),
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> GateDecision:
        return cls(
            action_id=data["action_id"],
            decision=data["decision"],
            decided_at_ms=data["decided_at_ms"],
            nonce=data.get("nonce", ""),
            reason=data.get("reason"),
            decided_by=data.get("decided_by") or {},
        )


@attrs.frozen
class WorkflowRun:
    run_id: str
    workflow_id: str
    status: RunStatus
    created_at_ms: int
    updated_at_ms: int
    trigger_type: TriggerType = "manual"
    actions: tuple[ActionRun, ...] = ()
    finished_at_ms: int | None = None
    awaiting_gate: PendingGate | None = None
    gate_history: tuple[GateDecision, ...] = ()
    binding_id: str | None = None
    trigger_event: str | None = None
    source_event_id: str | None = None
    task_id: str | None = None
    workspace_root: str | None = None
    automation_id: str | None = None
    automation_run_id: str | None = None
    source: Mapping[str, Any] | None = None
    detail: str | None = None
    hook_chain: tuple[str, ...] = ()
    """Hook bindings that led to this run: a binding never re-triggers from its own run's events."""

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_RUN_STATUSES

    def action(self, action_id: str) -> ActionRun | None:
        return next((a for a in self.actions if a.action_id == action_id), None)

    def with_action(self, updated: ActionRun) -> WorkflowRun:
        return attrs.evolve(
            self,
            actions=tuple(updated if a.action_id == updated.action_id else a for a in self.actions),
        )

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "run_id": self.run_id,
            "workflow_id": self.workflow_id,
            "status": self.status,
            "trigger_type": self.trigger_type,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "actions": [a.to_wire() for a in self.actions],
            "gate_history": [g.to_wire() for g in self.gate_history],
        }
        optional = {
            "finished_at_ms": self.finished_at_ms,
            "awaiting_gate": self.awaiting_gate.to_wire() if self.awaiting_gate else None,
            "binding_id": self.binding_id,
            "trigger_event": self.trigger_event,
            "source_event_id": self.source_event_id,
            "task_id": self.task_id,
            "workspace_root": self.workspace_root,
            "automation_id": self.automation_id,
            "automation_run_id": self.automation_run_id,
            "source": dict(self.source) if self.source is not None else None,
            "detail": self.detail,
        }
        wire.update({k: v for k, v in optional.items() if v is not None})
        return wire

    def to_doc(self) -> dict[str, Any]:
        doc = self.to_wire()
        doc["hook_chain"] = list(self.hook_chain)
        return doc

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> WorkflowRun:
        gate = doc.get("awaiting_gate")
        return cls(
            run_id=doc["run_id"],
            workflow_id=doc["workflow_id"],
            status=doc["status"],
            created_at_ms=doc["created_at_ms"],
            updated_at_ms=doc["updated_at_ms"],
            trigger_type=doc.get("trigger_type", "manual"),
            actions=tuple(ActionRun.from_wire(a) for a in doc.get("actions", ())),
            finished_at_ms=doc.get("finished_at_ms"),
            awaiting_gate=PendingGate.from_wire(gate) if gate else None,
            gate_history=tuple(GateDecision.from_wire(g) for g in doc.get("gate_history", ())),
            binding_id=doc.get("binding_id"),
            trigger_event=doc.get("trigger_event"),
            source_event_id=doc.get("source_event_id"),
            task_id=doc.get("task_id"),
            workspace_root=doc.get("workspace_root"),
            automation_id=doc.get("automation_id"),
            automation_run_id=doc.get("automation_run_id"),
            source=doc.get("source"),
            detail=doc.get("detail"),
            hook_chain=tuple(doc.get("hook_chain", ())),
        )


__all__ = [
    "TERMINAL_RUN_STATUSES",
    "ActionRun",
    "ActionStatus",
    "GateDecision",
    "PendingGate",
    "RunStatus",
    "TriggerType",
    "WorkflowRun",
]
