"""Workflow plans: what the planner drafts and what applying a plan materializes.

A plan is a small DAG of steps (each with an objective, an agent role and the
steps it depends on) plus a schedule, a workspace and the integrations it needs.
This module holds the checked records; :mod:`svc.workflows.plan_bodies` reads the
loosely shaped input and :mod:`svc.workflows.plan_normalization` checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

PLANNER_VERSION = "workflow_planner_v1"
EXECUTION_TARGET = "automation_v2"


@attrs.frozen
class InputRef:
    from_step_id: str
    alias: str

    def to_wire(self) -> dict[str, str]:
        return {"from_step_id": self.from_step_id, "alias": self.alias}


@attrs.frozen
class PlanStep:
    step_id: str
    objective: str
    kind: str = "task"
    agent_role: str = "worker"
    depends_on: tuple[str, ...] = ()
    input_refs: tuple[InputRef, ...] = ()
    output_contract: Mapping[str, Any] | None = None
    metadata: Mapping[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "step_id": self.step_id,
            "kind": self.kind,
            "objective": self.objective,
            "depends_on": list(self.depends_on),
            "agent_role": self.agent_role,
            "input_refs": [r.to_wire() for r in self.input_refs],
        }
        if self.output_contract is not None:
            wire["output_contract"] = dict(self.output_contract)
        if self.metadata is not None:
            wire["metadata"] = dict(self.metadata)
        return wire


@attrs.frozen
class WorkflowPlan:
    plan_id: str
    title: str
    original_prompt: str
    workspace_root: str
    steps: tuple[PlanStep, ...]
    schedule: Mapping[str, Any]
    planner_version: str = PLANNER_VERSION
    plan_source: str = "unknown"
    normalized_prompt: str = ""
    confidence: str = "medium"
    description: str | None = None
    execution_target: str = EXECUTION_TARGET
    requires_integrations: tuple[str, ...] = ()
    allowed_mcp_servers: tuple[str, ...] = ()
    operator_preferences: Mapping[str, Any] | None = None
    save_options: Mapping[str, Any] = attrs.field(factory=dict)

    def step(self, step_id: str) -> PlanStep | None:
        return next((s for s in self.steps if s.step_id == step_id), None)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "plan_id": self.plan_id,
            "planner_version": self.planner_version,
            "plan_source": self.plan_source,
            "original_prompt": self.original_prompt,
            "normalized_prompt": self.normalized_prompt,
            "confidence": self.confidence,
            "title": self.title,
            "schedule": dict(self.schedule),
            "execution_target": self.execution_target,
            "workspace_root": self.workspace_root,
            "steps": [s.to_wire() for s in self.steps],
            "requires_integrations": list(self.requires_integrations),
            "allowed_mcp_servers": list(self.allowed_mcp_servers),
            "save_options": dict(self.save_options),
        }
        if self.description is not None:
            wire["description"] = self.description
        if self.operator_preferences is not None:
            wire["operator_preferences"] = dict(self.operator_preferences)
        return wire


def plan_from_wire(data: Mapping[str, Any]) -> WorkflowPlan:
    """A stored plan back into its record (stored plans were normalized when saved)."""
    return WorkflowPlan(
        plan_id=data["plan_id"],
        title=data["title"],
        original_prompt=data.get("original_prompt", ""),
        workspace_root=data["workspace_root"],
        steps=tuple(
            PlanStep(
                step_id=s["step_id"],
                objective=s["objective"],
                kind=s.get("kind", "task"),
                agent_role=s.get("agent_role", "worker"),
                depends_on=tuple(s.get("depends_on", ())),
                input_refs=tuple(
                    InputRef(r["from_step_id"], r["alias"]) for r in s.get("input_refs", ())
                ),
                output_contract=s.get("output_contract"),
                metadata=s.get("metadata"),
            )
            for s in data.get("steps", ())
        ),
        schedule=data["schedule"],
        planner_version=data.get("planner_version", PLANNER_VERSION),
        plan_source=data.get("plan_source", "unknown"),
        normalized_prompt=data.get("normalized_prompt", ""),
        confidence=data.get("confidence", "medium"),
        description=data.get("description"),
        execution_target=data.get("execution_target", EXECUTION_TARGET),
        requires_integrations=tuple(data.get("requires_integrations", ())),
        allowed_mcp_servers=tuple(data.get("allowed_mcp_servers", ())),
        operator_preferences=data.get("operator_preferences"),
        save_options=data.get("save_options") or {},
    )


__all__ = [
    "EXECUTION_TARGET",
    "PLANNER_VERSION",
    "InputRef",
    "PlanStep",
    "WorkflowPlan",
    "plan_from_wire",
]
