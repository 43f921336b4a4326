"""Routine and routine-run records, and their wire shapes.

One record, two dialects: ``/routines`` answers with the routine shape
(``routine_id``, ``entrypoint``, ``args``, ``allowed_tools`` ...) and
``/automations`` with the mission shape (``automation_id``, ``mission``,
``policy.tool.run_allowlist`` ...). Both describe the same stored routine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from ..scheduler.schedule import MisfirePolicy, Schedule

ROUTINE_STATUSES = ("active", "paused")
RUN_STATUSES = (
    "queued",
    "pending_approval",
    "running",
    "paused",
    "blocked_policy",
    "denied",
    "completed",
    "failed",
    "cancelled",
)
TERMINAL_RUN_STATUSES = frozenset({"blocked_policy", "denied", "completed", "failed", "cancelled"})
BUSY_RUN_STATUSES = frozenset({"queued", "running", "pending_approval"})
"""While a routine has a run in one of these, the scheduler does not fire it again."""
DEFAULT_ENTRYPOINT = "mission.default"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


@attrs.frozen
class Routine:
    routine_id: str
    name: str
    status: str
    schedule: Schedule
    misfire: MisfirePolicy
    entrypoint: str
    args: Mapping[str, Any]
    allowed_tools: tuple[str, ...]
    output_targets: tuple[str, ...]
    requires_approval: bool
    external_integrations_allowed: bool
    created_at_ms: int
    updated_at_ms: int
    creator_type: str = "user"
    creator_id: str = "unknown"
    initial_statuses: dict[str, tuple[str, str | None]] = attrs.field(
        init=False, eq=False, repr=False
    )
    """A memo of the policy's verdict per trigger type (see :func:`..policy.initial_status`)."""
    snapshot_data: Mapping[str, Any] = attrs.field(init=False, eq=False, repr=False)
    snapshot_json: str = attrs.field(init=False, eq=False, repr=False)
    """The run snapshot (and its JSON), computed once per definition: every fire reuses them.

    Fire times are not part of the definition: the routine service keeps them."""

    def __attrs_post_init__(self) -> None:
        snapshot = self.snapshot()
        object.__setattr__(self, "snapshot_data", snapshot)
        object.__setattr__(self, "initial_statuses", {})
        object.__setattr__(self, "snapshot_json", _dumps(snapshot))

    @property
    def mode(self) -> str:
        mode = self.args.get("mode")
        return mode if mode in ("standalone", "orchestrated") else "standalone"

    @property
    def model_policy(self) -> Mapping[str, Any] | None:
        policy = self.args.get("model_policy")
        return policy if isinstance(policy, Mapping) and policy else None

    def snapshot(self) -> dict[str, Any]:
        """What a run keeps of its routine (so editing the routine never changes a run)."""
        return {
            "name": self.name,
            "entrypoint": self.entrypoint,
            "args": dict(self.args),
            "allowed_tools": list(self.allowed_tools),
            "output_targets": list(self.output_targets),
            "requires_approval": self.requires_approval,
            "external_integrations_allowed": self.external_integrations_allowed,
        }

    def definition(self) -> dict[str, Any]:
        """The stored document (fire times live in their own columns)."""
        return {
            "routine_id": self.routine_id,
            "name": self.name,
            "status": self.status,
            "schedule": self.schedule.routine_wire(),
            "timezone": self.schedule.timezone,
            "misfire_policy": self.misfire.to_wire(),
            "entrypoint": self.entrypoint,
            "args": dict(self.args),
            "allowed_tools": list(self.allowed_tools),
            "output_targets": list(self.output_targets),
            "creator_type": self.creator_type,
            "creator_id": self.creator_id,
            "requires_approval": self.requires_approval,
            "external_integrations_allowed": self.external_integrations_allowed,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
        }

    def routine_wire(
        self, next_fire_at_ms: int | None, last_fired_at_ms: int | None
    ) -> dict[str, Any]:
        wire = self.definition()
        wire["mode"] = self.mode
        wire["orchestrator_only_tool_calls"] = bool(
            self.args.get("orchestrator_only_tool_calls", False)
        )
        wire["next_fire_at_ms"] = next_fire_at_ms
        wire["last_fired_at_ms"] = last_fired_at_ms
        return wire

    def mission(self) -> dict[str, Any]:
        args = self.args
        objective = args.get("prompt")
        if not isinstance(objective, str) or not objective.strip():
            objective = (
                f"Execute automation '{self.routine_id}' with entrypoint '{self.entrypoint}'."
            )
        mission: dict[str, Any] = {
            "objective": objective,
            "success_criteria": success_criteria(args),
            "entrypoint_compat": self.entrypoint,
        }
        if isinstance(args.get("briefing"), str):
            mission["briefing"] = args["briefing"]
        return mission

    def policy(self) -> dict[str, Any]:
        return {
            "tool": {
                "run_allowlist": list(self.allowed_tools),
                "external_integrations_allowed": self.external_integrations_allowed,
                "orchestrator_only_tool_calls": bool(
                    self.args.get("orchestrator_only_tool_calls", False)
                ),
            },
            "approval": {"requires_approval": self.requires_approval},
        }

    def automation_wire(
        self, next_fire_at_ms: int | None = None, last_fired_at_ms: int | None = None
    ) -> dict[str, Any]:
        return {
            "automation_id": self.routine_id,
            "name": self.name,
            "status": self.status,
            "schedule": self.schedule.routine_wire(),
            "timezone": self.schedule.timezone,
            "misfire_policy": self.misfire.to_wire(),
            "mode": self.mode,
            "mission": self.mission(),
            "policy": self.policy(),
            "model_policy": dict(self.model_policy) if self.model_policy else None,
            "output_targets": list(self.output_targets),
            "creator_type": self.creator_type,
            "creator_id": self.creator_id,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "next_fire_at_ms": next_fire_at_ms,
            "last_fired_at_ms": last_fired_at_ms,
        }


def success_criteria(args: Mapping[str, Any]) -> list[str]:
    raw = args.get("success_criteria")
    if isinstance(raw, str):
        return [line.strip() for line in raw.splitlines() if line.strip()]
    if isinstance(raw, list):
        return [str(item).strip() for item in raw if str(item).strip()]
    return []


@attrs.frozen
class RoutineRun:
    run_id: str
    routine_id: str
    trigger_type: str
    status: str
    created_at_ms: int
    updated_at_ms: int
    fired_at_ms: int
    snapshot: Mapping[str, Any]
    snapshot_json: str = attrs.field(eq=False, repr=False)
    run_count: int = 1
    scheduled_at_ms: int | None = None
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    requires_approval: bool = False
    approval_reason: str | None = None
    denial_reason: str | None = None
    paused_reason: str | None = None
    detail: str | None = None
    artifacts: tuple[Mapping[str, Any], ...] = ()
    session_ids: tuple[str, ...] = ()
    """The sessions of this run's executions (the active one last)."""
    latest_session_id: str | None = None
    model: Mapping[str, Any] | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    estimated_cost_usd: float = 0.0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_RUN_STATUSES

    @property
    def busy(self) -> bool:
        """While a routine has a busy run, the scheduler does not fire it again."""
        return self.status in BUSY_RUN_STATUSES

    @property
    def entrypoint(self) -> str:
        return str(self.snapshot.get("entrypoint") or DEFAULT_ENTRYPOINT)

    @property
    def args(self) -> Mapping[str, Any]:
        return self.snapshot.get("args") or {}

    @property
    def allowed_tools(self) -> list[str]:
        return list(self.snapshot.get("allowed_tools") or ())

    @property
    def output_targets(self) -> list[str]:
        return list(self.snapshot.get("output_targets") or ())

    @property
    def mode(self) -> str:
        mode = self.args.get("mode")
        return mode if mode in ("standalone", "orchestrated") else "standalone"

    @property
    def active_session_ids(self) -> list[str]:
        return (
            [self.latest_session_id] if self.status == "running" and self.latest_session_id else []
        )

    def attach_event_stream(self) -> str | None:
        if not self.latest_session_id:
            return None
        return f"/event?sessionID={self.latest_session_id}&runID={self.run_id}"

    def context_links(self) -> dict[str, Any]:
        """The run's context run is its own event timeline (``GET /runs/{run_id}/events``)."""
        return {"contextRunID": self.run_id, "linked_context_run_id": self.run_id}

    def record_wire(self) -> dict[str, Any]:
        """The raw record (``/routines/runs``)."""
        return {
            "run_id": self.run_id,
            "routine_id": self.routine_id,
            "trigger_type": self.trigger_type,
            "run_count": self.run_count,
            "status": self.status,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "fired_at_ms": self.fired_at_ms,
            "scheduled_at_ms": self.scheduled_at_ms,
            "started_at_ms": self.started_at_ms,
            "finished_at_ms": self.finished_at_ms,
            "requires_approval": self.requires_approval,
            "approval_reason": self.approval_reason,
            "denial_reason": self.denial_reason,
            "paused_reason": self.paused_reason,
            "detail": self.detail,
            "entrypoint": self.entrypoint,
            "args": dict(self.args),
            "allowed_tools": self.allowed_tools,
            "output_targets": self.output_targets,
            "artifacts": [dict(a) for a in self.artifacts],
            "active_session_ids": self.active_session_ids,
            "session_ids": list(self.session_ids),
            "latest_session_id": self.latest_session_id,
            "model": dict(self.model) if self.model else None,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "estimated_cost_usd": self.estimated_cost_usd,
        }

    def automation_wire(self) -> dict[str, Any]:
        """The ``/automations`` run shape."""
        args = self.args
        objective = (
            args.get("prompt")
            if isinstance(args.get("prompt"), str) and args.get("prompt")
            else f"Execute automation '{self.routine_id}' with entrypoint '{self.entrypoint}'."
        )
        policy = args.get("model_policy")
        return {
            "run_id": self.run_id,
            "automation_id": self.routine_id,
            "trigger_type": self.trigger_type,
            "run_count": self.run_count,
            "status": self.status,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "fired_at_ms": self.fired_at_ms,
            "scheduled_at_ms": self.scheduled_at_ms,
            "started_at_ms": self.started_at_ms,
            "finished_at_ms": self.finished_at_ms,
            "mode": self.mode,
            "mission_snapshot": {
                "objective": objective,
                "success_criteria": success_criteria(args),
                "entrypoint_compat": self.entrypoint,
            },
            "policy_snapshot": {
                "tool": {
                    "run_allowlist": self.allowed_tools,
                    "external_integrations_allowed": bool(
                        self.snapshot.get("external_integrations_allowed")
                    ),
                    "orchestrator_only_tool_calls": bool(
                        args.get("orchestrator_only_tool_calls", False)
                    ),
                },
                "approval": {"requires_approval": self.requires_approval},
            },
            "allowed_tools": self.allowed_tools,
            "model_policy": dict(policy) if isinstance(policy, Mapping) and policy else None,
            "model": dict(self.model) if self.model else None,
            "requires_approval": self.requires_approval,
            "approval_reason": self.approval_reason,
            "denial_reason": self.denial_reason,
            "paused_reason": self.paused_reason,
            "detail": self.detail,
            "output_targets": self.output_targets,
            "artifacts": [dict(a) for a in self.artifacts],
            "correlation_id": self.run_id,
            **self.context_links(),
            "active_session_ids": self.active_session_ids,
            "latest_session_id": self.latest_session_id,
            "attach_event_stream": self.attach_event_stream(),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "estimated_cost_usd": self.estimated_cost_usd,
        }

    def history_wire(self) -> dict[str, Any]:
        return {
            "routine_id": self.routine_id,
            "run_id": self.run_id,
            "trigger_type": self.trigger_type,
            "run_count": self.run_count,
            "fired_at_ms": self.fired_at_ms,
            "scheduled_at_ms": self.scheduled_at_ms,
            "status": self.status,
            "detail": self.detail,
        }


__all__ = [
    "BUSY_RUN_STATUSES",
    "DEFAULT_ENTRYPOINT",
    "ROUTINE_STATUSES",
    "RUN_STATUSES",
    "TERMINAL_RUN_STATUSES",
    "Routine",
    "RoutineRun",
    "success_criteria",
]
