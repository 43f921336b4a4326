"""Orchestrations and long-running goals.

An orchestration is a published graph of automation workflows; a goal moves through
one published version of it, one workflow run per node, handing artifacts along named
transitions (optionally approval-gated, optionally waiting on a timer or an external
condition), within the budget of its goal policy. Each active goal has an actor
(``goal/<id>``) that applies its changes one at a time; every change is committed with a
durable event whose cursor survives restarts.
"""

from .actions import parse_action
from .component import GoalsComponent
from .dryrun import parse_dry_run
from .errors import (
    ArtifactPolicyViolation,
    DraftConcurrencyConflict,
    GoalForbidden,
    GoalNotFound,
    GoalStateConflict,
    GoalTerminal,
    HandoffNotFound,
    InvalidGoalRequest,
    InvalidOrchestrationRequest,
    OrchestrationInvalid,
    OrchestrationNotFound,
    ProjectionCursorNotRetained,
    WaitNotFound,
    WaitResolutionConflict,
)
from .events import EVENT_SOURCE, GoalEvent, events_page_wire
from .goal import GOAL_STATUSES, TERMINAL_GOAL_STATUSES, Goal, Handoff, RunLink, Wait
from .orchestration import Orchestration, parse_spec
from .projection import DEFAULT_LIMIT as PROJECTION_DEFAULT_LIMIT
from .projection import MAX_LIMIT as PROJECTION_MAX_LIMIT
from .service import (
    CompletionBody,
    GoalService,
    StartGoal,
    TransitionBody,
    parse_completion,
    parse_start,
    parse_transition,
    reason_of,
)
from .tenancy import LOCAL_CALLER, LOCAL_OPERATOR, Caller, Principal, TenantContext
from .tools import goal_tools
from .versions import spec_response

__all__ = [
    "EVENT_SOURCE",
    "GOAL_STATUSES",
    "LOCAL_CALLER",
    "LOCAL_OPERATOR",
    "PROJECTION_DEFAULT_LIMIT",
    "PROJECTION_MAX_LIMIT",
    "TERMINAL_GOAL_STATUSES",
    "ArtifactPolicyViolation",
    "Caller",
    "CompletionBody",
    "DraftConcurrencyConflict",
    "Goal",
    "GoalEvent",
    "GoalForbidden",
    "GoalNotFound",
    "GoalService",
    "GoalStateConflict",
    "GoalTerminal",
    "GoalsComponent",
    "Handoff",
    "HandoffNotFound",
    "InvalidGoalRequest",
    "InvalidOrchestrationRequest",
    "Orchestration",
    "OrchestrationInvalid",
    "OrchestrationNotFound",
    "Principal",
    "ProjectionCursorNotRetained",
    "RunLink",
    "StartGoal",
    "TenantContext",
    "TransitionBody",
    "Wait",
    "WaitNotFound",
    "WaitResolutionConflict",
    "events_page_wire",
    "goal_tools",
    "parse_action",
    "parse_completion",
    "parse_dry_run",
    "parse_spec",
    "parse_start",
    "parse_transition",
    "reason_of",
    "spec_response",
]
