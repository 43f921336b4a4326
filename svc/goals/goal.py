"""Goal records: the goal itself, its handoffs, its run links and its waits.

A goal moves through an orchestration version it is pinned to. Each workflow node it
visits is one automation run, linked to the goal with a hop index (the root run is hop
zero); each move between workflow nodes is a handoff carrying an artifact. Waits hold a
linked run before it starts until a timer fires or an external condition is resolved.

The records are frozen; ``to_wire`` is the snake_case API shape (optional fields
omitted when empty), ``to_store``/``from_store`` the stored JSON (the wire shape plus a
few internal fields).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ..convert import structure
from .orchestration import GoalPolicy
from .tenancy import TenantContext

SCHEMA_VERSION = 1

GoalStatus = Literal[
    "queued", "active", "waiting", "paused", "completed", "failed", "cancelled", "expired"
]
GOAL_STATUSES: tuple[str, ...] = (
    "queued",
    "active",
    "waiting",
    "paused",
    "completed",
    "failed",
    "cancelled",
    "expired",
)
TERMINAL_GOAL_STATUSES = frozenset({"completed", "failed", "cancelled", "expired"})

HandoffStatus = Literal[
    "pending_approval", "approved", "rejected", "claimed", "consumed", "dead_lettered"
]
OPEN_HANDOFF_STATUSES = frozenset({"pending_approval", "approved", "claimed"})

WaitStatus = Literal["waiting", "claimed", "woken", "timed_out", "escalated", "cancelled"]
OPEN_WAIT_STATUSES = frozenset({"waiting", "claimed", "escalated"})


def _omit_none(wire: dict[str, Any], *names: str) -> dict[str, Any]:
    for name in names:
        if wire.get(name) is None:
            wire.pop(name, None)
    return wire


@attrs.frozen
class Goal:
    goal_id: str
    orchestration_id: str
    orchestration_version: int
    objective: str
    status: GoalStatus
    tenant_context: TenantContext
    policy: GoalPolicy
    idempotency_key: str
    created_at_ms: int
    updated_at_ms: int
    active_run_id: str | None = None
    current_node_id: str | None = None
    hop_count: int = 0
    total_tokens: int = 0
    total_cost_usd: float = 0.0
    finished_at_ms: int | None = None
    final_artifact: Any = None
    metadata: dict[str, Any] | None = None
    # internal
    charged_run_ids: tuple[str, ...] = ()
    """Runs whose usage is already charged to the goal (each run is charged once)."""
    status_reason: str | None = None
    """Why the goal has its status (``hop_limit``, ``operator pause``, ``deadline`` ...)."""
    settled_run_id: str | None = None
    """The last linked run whose end is recorded (its watch is not re-armed)."""
    deadline_passed: bool = False
    """The deadline fired and its policy was applied; resuming does not fire it again (new hops
    stay refused by the transition limits, but the goal may still be settled)."""

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_GOAL_STATUSES

    @property
    def started_by(self) -> Any:
        return (self.metadata or {}).get("started_by")

    @property
    def orchestration_snapshot(self) -> Mapping[str, Any] | None:
        snapshot = (self.metadata or {}).get("orchestration_snapshot")
        return snapshot if isinstance(snapshot, Mapping) else None

    def to_wire(self) -> dict[str, Any]:
        wire = {
            "schema_version": SCHEMA_VERSION,
            "goal_id": self.goal_id,
            "orchestration_id": self.orchestration_id,
            "orchestration_version": self.orchestration_version,
            "objective": self.objective,
            "status": self.status,
            "tenant_context": self.tenant_context.to_wire(),
            "policy": self.policy.to_wire(),
            "active_run_id": self.active_run_id,
            "current_node_id": self.current_node_id,
            "hop_count": self.hop_count,
            "total_tokens": self.total_tokens,
            "total_cost_usd": self.total_cost_usd,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "finished_at_ms": self.finished_at_ms,
            "final_artifact": self.final_artifact,
            "metadata": self.metadata,
        }
        return _omit_none(
            wire, "active_run_id", "current_node_id", "finished_at_ms", "final_artifact", "metadata"
        )

    def summary(self) -> dict[str, Any]:
        """The wire shape without the (large) orchestration snapshot, for events and lists."""
        wire = self.to_wire()
        if (
            isinstance(wire.get("metadata"), Mapping)
            and "orchestration_snapshot" in wire["metadata"]
        ):
            wire["metadata"] = {
                k: v for k, v in wire["metadata"].items() if k != "orchestration_snapshot"
            }
        return wire

    def to_store(self) -> dict[str, Any]:
        stored = self.to_wire()
        stored["idempotency_key"] = self.idempotency_key
        stored["charged_run_ids"] = list(self.charged_run_ids)
        stored["status_reason"] = self.status_reason
        stored["settled_run_id"] = self.settled_run_id
        stored["deadline_passed"] = self.deadline_passed
        return stored

    @classmethod
    def from_store(cls, data: Mapping[str, Any]) -> Goal:
        return cls(
            goal_id=data["goal_id"],
            orchestration_id=data["orchestration_id"],
            orchestration_version=int(data["orchestration_version"]),
            objective=data["objective"],
            status=data["status"],
            tenant_context=TenantContext.from_wire(data.get("tenant_context")),
            policy=structure(GoalPolicy, data.get("policy") or {}),
            idempotency_key=data.get("idempotency_key", ""),
            created_at_ms=int(data["created_at_ms"]),
            updated_at_ms=int(data["updated_at_ms"]),
            active_run_id=data.get("active_run_id"),
            current_node_id=data.get("current_node_id"),
            hop_count=int(data.get("hop_count", 0)),
            total_tokens=int(data.get("total_tokens", 0)),
            total_cost_usd=float(data.get("total_cost_usd", 0.0)),
            finished_at_ms=data.get("finished_at_ms"),
            final_artifact=data.get("final_artifact"),
            metadata=data.get("metadata"),
            charged_run_ids=tuple(data.get("charged_run_ids") or ()),
            status_reason=data.get("status_reason"),
            settled_run_id=data.get("settled_run_id"),
            deadline_passed=bool(data.get("deadline_passed", False)),
        )


@attrs.frozen
class Handoff:
    handoff_id: str
    idempotency_key: str
    goal_id: str
    orchestration_id: str
    orchestration_version: int
    tenant_context: TenantContext
    edge_id: str
    transition_key: str
    source_automation_id: str
    source_run_id: str
    source_node_id: str
    target_automation_id: str
    target_node_id: str
    artifact: Any
    status: HandoffStatus
    created_at_ms: int
    updated_at_ms: int
    consumed_by_run_id: str | None = None
    metadata: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire = {
            "schema_version": SCHEMA_VERSION,
            "handoff_id": self.handoff_id,
            "idempotency_key": self.idempotency_key,
            "goal_id": self.goal_id,
            "orchestration_id": self.orchestration_id,
            "orchestration_version": self.orchestration_version,
            "tenant_context": self.tenant_context.to_wire(),
            "edge_id": self.edge_id,
            "transition_key": self.transition_key,
            "source_automation_id": self.source_automation_id,
            "source_run_id": self.source_run_id,
            "source_node_id": self.source_node_id,
            "target_automation_id": self.target_automation_id,
            "target_node_id": self.target_node_id,
            "artifact": self.artifact,
            "status": self.status,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "consumed_by_run_id": self.consumed_by_run_id,
            "metadata": self.metadata,
        }
        return _omit_none(wire, "consumed_by_run_id", "metadata")

    to_store = to_wire

    @classmethod
    def from_store(cls, data: Mapping[str, Any]) -> Handoff:
        fields = {f.name for f in attrs.fields(cls)}
        values = {k: v for k, v in data.items() if k in fields}
        values["tenant_context"] = TenantContext.from_wire(data.get("tenant_context"))
        return cls(**values)


@attrs.frozen
class RunLink:
    goal_id: str
    run_id: str
    orchestration_node_id: str
    orchestration_version: int
    hop_index: int
    created_at_ms: int
    parent_run_id: str | None = None
    triggering_handoff_id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "goal_id": self.goal_id,
            "run_id": self.run_id,
            "orchestration_node_id": self.orchestration_node_id,
            "orchestration_version": self.orchestration_version,
            "hop_index": self.hop_index,
            "parent_run_id": self.parent_run_id,
            "triggering_handoff_id": self.triggering_handoff_id,
            "created_at_ms": self.created_at_ms,
        }

    to_store = to_wire

    @classmethod
    def from_store(cls, data: Mapping[str, Any]) -> RunLink:
        values: dict[str, Any] = {f.name: data.get(f.name) for f in attrs.fields(cls)}
        return cls(**values)


@attrs.frozen
class Wait:
    wait_id: str
    run_id: str
    goal_id: str
    wait_kind: str
    status: WaitStatus
    tenant_context: TenantContext
    phase_id: str
    """The orchestration node whose run waits."""
    created_at_ms: int
    updated_at_ms: int
    reason: str | None = None
    wake_at_ms: int | None = None
    timeout_policy: dict[str, Any] | None = None
    wake_idempotency_key: str | None = None
    completed_at_ms: int | None = None
    metadata: dict[str, Any] | None = None

    @property
    def open(self) -> bool:
        return self.status in OPEN_WAIT_STATUSES

    @property
    def resolution(self) -> Any:
        return (self.metadata or {}).get("resolution")

    def to_wire(self) -> dict[str, Any]:
        wire = {
            "schema_version": SCHEMA_VERSION,
            "wait_id": self.wait_id,
            "run_id": self.run_id,
            "wait_kind": self.wait_kind,
            "status": self.status,
            "scope": {
                "schema_version": SCHEMA_VERSION,
                "tenant_context": self.tenant_context.to_wire(),
            },
            "phase_id": self.phase_id,
            "reason": self.reason,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "wake_at_ms": self.wake_at_ms,
            "timeout_policy": self.timeout_policy,
            "wake_idempotency_key": self.wake_idempotency_key,
            "completed_at_ms": self.completed_at_ms,
            "metadata": self.metadata,
        }
        return _omit_none(
            wire,
            "reason",
            "wake_at_ms",
            "timeout_policy",
            "wake_idempotency_key",
            "completed_at_ms",
            "metadata",
        )

    def to_store(self) -> dict[str, Any]:
        stored = self.to_wire()
        stored["goal_id"] = self.goal_id
        return stored

    @classmethod
    def from_store(cls, data: Mapping[str, Any]) -> Wait:
        return cls(
            wait_id=data["wait_id"],
            run_id=data["run_id"],
            goal_id=data["goal_id"],
            wait_kind=data["wait_kind"],
            status=data["status"],
            tenant_context=TenantContext.from_wire((data.get("scope") or {}).get("tenant_context")),
            phase_id=data.get("phase_id", ""),
            created_at_ms=int(data["created_at_ms"]),
            updated_at_ms=int(data["updated_at_ms"]),
            reason=data.get("reason"),
            wake_at_ms=data.get("wake_at_ms"),
            timeout_policy=data.get("timeout_policy"),
            wake_idempotency_key=data.get("wake_idempotency_key"),
            completed_at_ms=data.get("completed_at_ms"),
            metadata=data.get("metadata"),
        )


__all__ = [
    "GOAL_STATUSES",
    "OPEN_HANDOFF_STATUSES",
    "OPEN_WAIT_STATUSES",
    "TERMINAL_GOAL_STATUSES",
    "Goal",
    "GoalStatus",
    "Handoff",
    "RunLink",
    "Wait",
]
