"""Orchestrations and long-running goals.

An orchestration is a published graph of automation workflows; a goal moves through
one published version of it, one workflow run per node, handing artifacts along named
transitions (optionally approval-gated, optionally waiting on a timer or an external
condition), within the budget of its goal policy. Each active goal has an actor
(``goal/<id>``) that applies its changes one at a time; every change is committed with a
durable event whose cursor survives restarts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    # The same names, for type checkers: at run time each loads with its module.
    from .actions import parse_action  # noqa: F401
    from .component import GoalsComponent  # noqa: F401
    from .dryrun import parse_dry_run  # noqa: F401
    from .errors import (  # noqa: F401
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
    from .events import EVENT_SOURCE, GoalEvent, events_page_wire  # noqa: F401
    from .goal import (  # noqa: F401
        GOAL_STATUSES,
        TERMINAL_GOAL_STATUSES,
        Goal,
        Handoff,
        RunLink,
        Wait,
    )
    from .orchestration import Orchestration, parse_spec  # noqa: F401
    from .projection import DEFAULT_LIMIT as PROJECTION_DEFAULT_LIMIT  # noqa: F401
    from .projection import MAX_LIMIT as PROJECTION_MAX_LIMIT  # noqa: F401
    from .requests import (  # noqa: F401
        CompletionBody,
        StartGoal,
        TransitionBody,
        parse_completion,
        parse_start,
        parse_transition,
        reason_of,
    )
    from .service import GoalService  # noqa: F401
    from .tenancy import (  # noqa: F401
        LOCAL_CALLER,
        LOCAL_OPERATOR,
        Caller,
        Principal,
        TenantContext,
    )
    from .tools import goal_tools  # noqa: F401
    from .versions import spec_response  # noqa: F401

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
