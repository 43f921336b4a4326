"""Automation v2 records: the automation, its runs, and each node's state in a run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import attrs

RUN_STATUSES = (
    "queued",
    "running",
    "paused",
    "awaiting_approval",
    "completed",
    "failed",
    "cancelled",
)
TERMINAL_RUN_STATUSES = frozenset({"completed", "failed", "cancelled"})
NODE_STATUSES = (
    "pending",
    "running",
    "awaiting_approval",
    "completed",
    "failed",
    "skipped",
    "cancelled",
)


def definition_hash(spec: Mapping[str, Any]) -> str:
    """``sha256:`` + the hex digest of the spec's canonical JSON (sorted keys, compact, UTF-8)."""
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@attrs.frozen
class AutomationV2:
    automation_id: str
    name: str
    status: str
    spec: Mapping[str, Any]
    """The canonical definition (see :mod:`svc.automations.v2.spec`)."""
    created_at_ms: int
    updated_at_ms: int
    creator_kind: str = "human"
    creator_id: str | None = None
    provenance: Mapping[str, Any] = attrs.field(factory=dict)
    """Who created it and how: ``{source, agent_id, lineage}``."""
    next_fire_at_ms: int | None = None
    last_fired_at_ms: int | None = None

    @property
    def definition_hash(self) -> str:
        return definition_hash(self.spec)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"automation_id": self.automation_id, "status": self.status}
        wire.update(json.loads(json.dumps(self.spec)))
        wire.update(
            {
                "creator_id": self.creator_id,
                "creator_type": self.creator_kind,
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
                "next_fire_at_ms": self.next_fire_at_ms,
                "last_fired_at_ms": self.last_fired_at_ms,
                "definition_hash": self.definition_hash,
            }
        )
        return wire

    def summary_wire(self) -> dict[str, Any]:
        return {
            "automation_id": self.automation_id,
            "name": self.name,
            "status": self.status,
            "schedule": self.spec.get("schedule"),
            "node_count": len(self.spec["flow"]["nodes"]),
            "agent_count": len(self.spec["agents"]),
            "creator_id": self.creator_id,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "next_fire_at_ms": self.next_fire_at_ms,
            "last_fired_at_ms": self.last_fired_at_ms,
        }


@attrs.frozen
class NodeState:
    node_id: str
    agent_id: str
    status: str = "pending"
    attempts: int = 0
    output: str | None = None
    error: str | None = None
    session_id: str | None = None
    session_run_id: str | None = None
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    allowed_tools: tuple[str, ...] = ()
    model: Mapping[str, Any] | None = None
    usage: Mapping[str, Any] = attrs.field(factory=dict)
    decision: str | None = None
    """For a gate node: the decision that settled it."""

    def to_wire(self) -> dict[str, Any]:
        text = self.output or ""
        return {
            "node_id": self.node_id,
            "agent_id": self.agent_id,
            "status": self.status,
            "attempts": self.attempts,
            "summary": text[:280],
            "content": self.output,
            "error": self.error,
            "session_id": self.session_id,
            "session_run_id": self.session_run_id,
            "started_at_ms": self.started_at_ms,
            "finished_at_ms": self.finished_at_ms,
            "allowed_tools": list(self.allowed_tools),
            "model": dict(self.model) if self.model else None,
            "usage": dict(self.usage),
            "decision": self.decision,
        }


@attrs.frozen
class AutomationV2Run:
    run_id: str
    automation_id: str
    status: str
    trigger_type: str
    created_at_ms: int
    updated_at_ms: int
    snapshot: Mapping[str, Any]
    """The spec this run executes (frozen when the run was created)."""
    definition_hash: str
    nodes: Mapping[str, NodeState]
    """Every node of the snapshot, in declared order."""
    allowed_tools: tuple[str, ...] = ()
    """Union of the tool patterns the nodes' agents may use (SPEC 2.4)."""
    trigger_reason: str = ""
    context: Mapping[str, Any] = attrs.field(factory=dict)
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    detail: str | None = None
    stop_reason: str | None = None
    awaiting_gate: Mapping[str, Any] | None = None
    gate_history: tuple[Mapping[str, Any], ...] = ()
    usage: Mapping[str, Any] = attrs.field(
        factory=lambda: {
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "total_tokens": 0,
            "estimated_cost_usd": 0.0,
        }
    )

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_RUN_STATUSES

    @property
    def node_outputs(self) -> dict[str, str]:
        """node_id → output text, for the nodes that completed."""
        return {n.node_id: n.output or "" for n in self.nodes.values() if n.status == "completed"}

    @property
    def active_session_ids(self) -> list[str]:
        return [n.session_id for n in self.nodes.values() if n.status == "running" and n.session_id]

    @property
    def latest_session_id(self) -> str | None:
        started = [n for n in self.nodes.values() if n.session_id and n.started_at_ms is not None]
        return max(started, key=lambda n: n.started_at_ms or 0).session_id if started else None

    def with_node(self, state: NodeState) -> AutomationV2Run:
        return attrs.evolve(self, nodes={**self.nodes, state.node_id: state})

    def to_wire(self) -> dict[str, Any]:
        nodes = list(self.nodes.values())
        return {
            "run_id": self.run_id,
            "automation_id": self.automation_id,
            "trigger_type": self.trigger_type,
            "trigger_reason": self.trigger_reason,
            "status": self.status,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "started_at_ms": self.started_at_ms,
            "finished_at_ms": self.finished_at_ms,
            "allowed_tools": list(self.allowed_tools),
            "active_session_ids": self.active_session_ids,
            "latest_session_id": self.latest_session_id,
            "checkpoint": {
                "completed_nodes": [n.node_id for n in nodes if n.status == "completed"],
                "pending_nodes": [
                    n.node_id
                    for n in nodes
                    if n.status in ("pending", "running", "awaiting_approval")
                ],
                # Claims recorded by POST .../backlog/tasks/{id}/claim.
                "backlog_claims": dict(self.context.get("backlog_claims") or {}),
                "blocked_nodes": [
                    n.node_id for n in nodes if n.status in ("failed", "skipped", "cancelled")
                ],
                "node_outputs": {n.node_id: n.to_wire() for n in nodes if n.status != "pending"},
                "node_attempts": {n.node_id: n.attempts for n in nodes},
                "awaiting_gate": dict(self.awaiting_gate) if self.awaiting_gate else None,
                "gate_history": [dict(g) for g in self.gate_history],
            },
            "node_statuses": {n.node_id: n.status for n in nodes},
            "node_outputs": self.node_outputs,
            "runtime_context": dict(self.context),
            "automation_snapshot": dict(self.snapshot),
            "workflow_definition_snapshot_hash": self.definition_hash,
            # The run's context run is its own event timeline (``GET /runs/{run_id}/events``).
            "contextRunID": self.run_id,
            "linked_context_run_id": self.run_id,
            "detail": self.detail,
            "stop_reason": self.stop_reason,
            "prompt_tokens": self.usage.get("prompt_tokens", 0),
            "completion_tokens": self.usage.get("completion_tokens", 0),
            "total_tokens": self.usage.get("total_tokens", 0),
            "estimated_cost_usd": self.usage.get("estimated_cost_usd", 0.0),
            "usage": dict(self.usage),
        }

    # ------------------------------------------------------------------ storage
    def to_record(self) -> dict[str, Any]:
        record = attrs.asdict(self, recurse=True)
        record["nodes"] = [attrs.asdict(n) for n in self.nodes.values()]
        return record

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> AutomationV2Run:
        values = dict(data)
        nodes = [
            NodeState(**{**n, "allowed_tools": tuple(n.get("allowed_tools") or ())})
            for n in values["nodes"]
        ]
        values["nodes"] = {n.node_id: n for n in nodes}
        values["allowed_tools"] = tuple(values.get("allowed_tools") or ())
        values["gate_history"] = tuple(values.get("gate_history") or ())
        return cls(**values)


__all__ = [
    "NODE_STATUSES",
    "RUN_STATUSES",
    "TERMINAL_RUN_STATUSES",
    "AutomationV2",
    "AutomationV2Run",
    "NodeState",
    "definition_hash",
]
