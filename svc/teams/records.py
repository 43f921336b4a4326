"""Agent-team records: roles, spawn requests, instances, approvals, and their wire shapes.

Agent-team wire names are camelCase with an upper-case ``ID`` (``missionID``,
``instanceID``), while policy, template and budget fields stay snake_case
(``max_tokens``, ``budget_override``), as clients of the API expect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from supervisors import BudgetLimits, BudgetUsage

from .schema import (
    INSTANCE_STATUSES,
    ROLES,
    SPAWN_SOURCES,
    TERMINAL,
    InstanceStatus,
    Role,
    SpawnSource,
)
from .templates import Capabilities

DEFAULT_MISSION = "mission-default"
"""The mission of a spawn that names none."""

APPROVAL_CODE = "spawn_requires_approval"


def limits_to_wire(limits: BudgetLimits) -> dict[str, Any]:
    """A BudgetLimit as the wire has it: snake_case, unset dimensions omitted."""
    return {name: value for name, value in attrs.asdict(limits).items() if value is not None}


def limits_from_wire(data: Mapping[str, Any] | None) -> BudgetLimits:
    known = {f.name for f in attrs.fields(BudgetLimits)}
    return BudgetLimits(**{k: v for k, v in (data or {}).items() if k in known and v is not None})


def usage_to_wire(usage: BudgetUsage) -> dict[str, Any]:
    return {
        "tokensUsed": usage.tokens,
        "stepsUsed": usage.steps,
        "toolCallsUsed": usage.tool_calls,
        "costUsedUsd": round(usage.cost_usd, 8),
        "elapsedMs": usage.duration_ms,
    }


def usage_from_wire(data: Mapping[str, Any] | None) -> BudgetUsage:
    data = data or {}
    return BudgetUsage(
        tokens=int(data.get("tokensUsed") or 0),
        steps=int(data.get("stepsUsed") or 0),
        tool_calls=int(data.get("toolCallsUsed") or 0),
        cost_usd=float(data.get("costUsedUsd") or 0.0),
        duration_ms=int(data.get("elapsedMs") or 0),
    )


@attrs.frozen(kw_only=True)
class SpawnRequest:
    """One request to spawn an agent instance, from any entry point (HTTP, tool, mission bridge)."""

    role: Role
    source: SpawnSource = "ui_action"
    mission_id: str | None = None
    parent_instance_id: str | None = None
    template_id: str | None = None
    justification: str = ""
    budget_override: BudgetLimits | None = None
    prompt: str | None = None
    """The instance's task: when set, the instance starts a run with it at once."""
    parent_role: Role | None = None
    """An explicit parent role (the mission bridge spawns as the orchestrator)."""
    calling_session_id: str | None = None
    """The session whose ``spawn_agent`` call asked for this (for events)."""
    calling_message_id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        """The stored ``request`` of a spawn approval (absent options omitted)."""
        wire: dict[str, Any] = {
            "missionID": self.mission_id,
            "parentInstanceID": self.parent_instance_id,
            "source": self.source,
            "parent_role": self.parent_role,
            "role": self.role,
            "templateID": self.template_id,
            "justification": self.justification,
            "budget_override": limits_to_wire(self.budget_override)
            if self.budget_override
            else None,
            "prompt": self.prompt,
        }
        return {k: v for k, v in wire.items() if v is not None}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SpawnRequest:
        override = data.get("budget_override")
        return cls(
            role=data["role"],
            source=data.get("source") or "ui_action",
            mission_id=data.get("missionID"),
            parent_instance_id=data.get("parentInstanceID"),
            template_id=data.get("templateID"),
            justification=data.get("justification") or "",
            budget_override=limits_from_wire(override) if override else None,
            prompt=data.get("prompt"),
            parent_role=data.get("parent_role"),
        )


@attrs.frozen(kw_only=True)
class Instance:
    """An agent instance: one child session, run under its own budget inside its mission."""

    id: str
    mission_id: str
    role: Role
    template_id: str
    session_id: str
    status: InstanceStatus
    budget: BudgetLimits
    """The resolved limits (role default, template default, override, parent cap)."""
    skill_hash: str
    capabilities: Capabilities
    source: str
    justification: str
    workspace_root: str
    created_at_ms: int
    updated_at_ms: int
    parent_instance_id: str | None = None
    run_id: str | None = None
    """The instance's current (or last) run."""
    usage: BudgetUsage | None = None
    """Usage charged so far; None until the first charge was reported."""
    reason: str | None = None
    """Why the instance ended (cancel reason, failure message)."""
    exhausted_by: str | None = None
    """The budget limit that ended it (``max_tokens``, ``mission_max_cost_usd`` ...)."""
    ended_at_ms: int | None = None
    prompt: str | None = None
    system_prompt: str | None = None
    """The template's system prompt, applied to every run of the instance."""

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def usage_or_zero(self) -> BudgetUsage:
        return self.usage if self.usage is not None else BudgetUsage()

    def to_wire(self) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "source": self.source,
            "justification": self.justification,
            "workspaceRoot": self.workspace_root,
            "workspaceRepoRoot": self.workspace_root,
            "managedWorktree": None,
        }
        if self.usage is not None:
            metadata["budgetUsage"] = usage_to_wire(self.usage)
        if self.reason is not None:
            metadata["reason"] = self.reason
        if self.exhausted_by is not None:
            metadata["exhaustedBy"] = self.exhausted_by
        wire: dict[str, Any] = {
            "instanceID": self.id,
            "missionID": self.mission_id,
            "parentInstanceID": self.parent_instance_id,
            "role": self.role,
            "templateID": self.template_id,
            "sessionID": self.session_id,
            "runID": self.run_id,
            "status": self.status,
            "budget": limits_to_wire(self.budget),
            "skillHash": self.skill_hash,
            "capabilities": self.capabilities.to_wire(),
            "metadata": metadata,
            "createdAtMs": self.created_at_ms,
            "updatedAtMs": self.updated_at_ms,
            "endedAtMs": self.ended_at_ms,
        }
        for optional in ("parentInstanceID", "runID", "endedAtMs"):
            if wire[optional] is None:
                del wire[optional]
        return wire


@attrs.frozen(kw_only=True)
class SpawnApproval:
    """A spawn queued for a human decision (an edge with behavior ``request_only``)."""

    id: str
    request: SpawnRequest
    decision_code: str
    reason: str
    created_at_ms: int

    @property
    def mission_id(self) -> str:
        return self.request.mission_id or DEFAULT_MISSION

    def to_wire(self) -> dict[str, Any]:
        return {
            "approvalID": self.id,
            "createdAtMs": self.created_at_ms,
            "request": self.request.to_wire(),
            "decisionCode": self.decision_code,
            "reason": self.reason,
            # A queued approval is undecided (decided ones leave the queue).
            "status": "pending",
        }


@attrs.frozen(kw_only=True)
class MissionState:
    """A mission's budget counters and fate, persisted so a restart keeps enforcing them."""

    id: str
    usage: BudgetUsage
    created_at_ms: int
    updated_at_ms: int
    limits: BudgetLimits = BudgetLimits()
    exhausted_by: str | None = None
    cancelled_at_ms: int | None = None
    cancel_reason: str | None = None


__all__ = [
    "APPROVAL_CODE",
    "DEFAULT_MISSION",
    "INSTANCE_STATUSES",
    "ROLES",
    "SPAWN_SOURCES",
    "TERMINAL",
    "Instance",
    "InstanceStatus",
    "MissionState",
    "Role",
    "SpawnApproval",
    "SpawnRequest",
    "SpawnSource",
    "limits_from_wire",
    "limits_to_wire",
    "usage_from_wire",
    "usage_to_wire",
]
