"""Workflows: YAML-defined workflows and hooks, workflow runs with approval gates, and the workflow planner."""

from .actions import ActionInvalid, ParsedAction, parse_action
from .automation_spec import workflow_automation_preview
from .component import WorkflowsComponent, workflows_of
from .definitions import (
    ValidationMessage,
    WorkflowAction,
    WorkflowHook,
    WorkflowRegistry,
    WorkflowSourceRef,
    WorkflowSpec,
    WorkflowStep,
)
from .errors import (
    AutomationsUnavailable,
    GateExpired,
    GateInvalidDecision,
    GateReplayed,
    GateRequiresHuman,
    ImportIncompatible,
    PlanInvalid,
    PlannerSessionNotFound,
    PlanNotFound,
    RunNotAwaitingApproval,
    WorkflowDisabled,
    WorkflowHookNotFound,
    WorkflowNotFound,
    WorkflowRunNotActive,
    WorkflowRunNotFound,
    WorkflowsUnavailable,
)
from .loading import LoadResult, LoadSource, load_registry
from .requester import Requester, requester_from, requester_from_headers
from .runs import ActionRun, GateDecision, PendingGate, WorkflowRun
from .service import WorkflowService
from .simulation import Simulation, canonical_event_names, simulate
from .validation import validate_registry

__all__ = [
    "ActionInvalid",
    "ActionRun",
    "AutomationsUnavailable",
    "GateDecision",
    "GateExpired",
    "GateInvalidDecision",
    "GateReplayed",
    "GateRequiresHuman",
    "ImportIncompatible",
    "LoadResult",
    "LoadSource",
    "ParsedAction",
    "PendingGate",
    "PlanInvalid",
    "PlanNotFound",
    "PlannerSessionNotFound",
    "Requester",
    "RunNotAwaitingApproval",
    "Simulation",
    "ValidationMessage",
    "WorkflowAction",
    "WorkflowDisabled",
    "WorkflowHook",
    "WorkflowHookNotFound",
    "WorkflowNotFound",
    "WorkflowRegistry",
    "WorkflowRun",
    "WorkflowRunNotActive",
    "WorkflowRunNotFound",
    "WorkflowService",
    "WorkflowSourceRef",
    "WorkflowSpec",
    "WorkflowStep",
    "WorkflowsComponent",
    "WorkflowsUnavailable",
    "canonical_event_names",
    "load_registry",
    "parse_action",
    "requester_from",
    "requester_from_headers",
    "simulate",
    "validate_registry",
    "workflow_automation_preview",
    "workflows_of",
]
