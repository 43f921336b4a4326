"""Orchestrations and long-running goals.

An orchestration is a published graph of automation workflows; a goal moves through
one published version of it, one workflow run per node, handing artifacts along named
transitions (optionally approval-gated, optionally waiting on a timer or an external
condition), within the budget of its goal policy. Each active goal has an actor
(``goal/<id>``) that applies its changes one at a time; every change is committed with a
durable event whose cursor survives restarts.
"""

from __future__ import annotations

from ..lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".actions": [
            "parse_action",
        ],
        ".component": [
            "GoalsComponent",
        ],
        ".dryrun": [
            "parse_dry_run",
        ],
        ".errors": [
            "ArtifactPolicyViolation",
            "DraftConcurrencyConflict",
            "GoalForbidden",
            "GoalNotFound",
            "GoalStateConflict",
            "GoalTerminal",
            "HandoffNotFound",
            "InvalidGoalRequest",
            "InvalidOrchestrationRequest",
            "OrchestrationInvalid",
            "OrchestrationNotFound",
            "ProjectionCursorNotRetained",
            "WaitNotFound",
            "WaitResolutionConflict",
        ],
        ".events": [
            "EVENT_SOURCE",
            "GoalEvent",
            "events_page_wire",
        ],
        ".goal": [
            "GOAL_STATUSES",
            "TERMINAL_GOAL_STATUSES",
            "Goal",
            "Handoff",
            "RunLink",
            "Wait",
        ],
        ".orchestration": [
            "Orchestration",
            "parse_spec",
        ],
        ".projection": [
            "DEFAULT_LIMIT as PROJECTION_DEFAULT_LIMIT",
            "MAX_LIMIT as PROJECTION_MAX_LIMIT",
        ],
        ".requests": [
            "CompletionBody",
            "StartGoal",
            "TransitionBody",
            "parse_completion",
            "parse_start",
            "parse_transition",
            "reason_of",
        ],
        ".service": [
            "GoalService",
        ],
        ".tenancy": [
            "LOCAL_CALLER",
            "LOCAL_OPERATOR",
            "Caller",
            "Principal",
            "TenantContext",
        ],
        ".tools": [
            "goal_tools",
        ],
        ".versions": [
            "spec_response",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
