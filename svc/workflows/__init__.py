"""Workflows: YAML-defined workflows and hooks, workflow runs with approval gates, and the workflow planner."""

from .actions import ActionInvalid, ParsedAction, parse_action
from .automation_spec import workflow_automation_preview
from .component import WorkflowsComponent, planner_of, workflows_of
from .context_stream import MAX_TAIL, ContextRuns, normalize_workspace, parse_run_ids
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
from .materialize import plan_to_automation
from .plan_import import plan_from_import, preview_import, validate_bundle
from .plan_package import (
    compare_replay,
    compile_package,
    export_bundle,
    scope_snapshot,
    validate_package,
)
from .planner import Planner
from .planner_service import (
    ApplyRequest,
    ChatMessageRequest,
    ImportRequest,
    PlanIdRequest,
    PlannerService,
    PlanRequest,
)
from .plans import PlanStep, WorkflowPlan
from .requester import (
    AGENT_ID_HEADER,
    REQUEST_SOURCE_HEADER,
    Requester,
    requester_from,
    requester_from_headers,
)
from .runs import ActionRun, GateDecision, PendingGate, WorkflowRun
from .service import WorkflowService
from .simulation import Simulation, canonical_event_names, simulate
from .studio import RESEARCH_STAGES, migrate_studio_workflow, structure_version
from .studio_migration import migrate_stored_studio_workflow, migrate_stored_studio_workflows
from .validation import validate_registry

__all__ = [
    "AGENT_ID_HEADER",
    "MAX_TAIL",
    "REQUEST_SOURCE_HEADER",
    "RESEARCH_STAGES",
    "ActionInvalid",
    "ActionRun",
    "ApplyRequest",
    "AutomationsUnavailable",
    "ChatMessageRequest",
    "ContextRuns",
    "GateDecision",
    "GateExpired",
    "GateInvalidDecision",
    "GateReplayed",
    "GateRequiresHuman",
    "ImportIncompatible",
    "ImportRequest",
    "LoadResult",
    "LoadSource",
    "ParsedAction",
    "PendingGate",
    "PlanIdRequest",
    "PlanInvalid",
    "PlanNotFound",
    "PlanRequest",
    "PlanStep",
    "Planner",
    "PlannerService",
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
    "WorkflowPlan",
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
    "compare_replay",
    "compile_package",
    "export_bundle",
    "load_registry",
    "migrate_stored_studio_workflow",
    "migrate_stored_studio_workflows",
    "migrate_studio_workflow",
    "normalize_workspace",
    "parse_action",
    "parse_run_ids",
    "plan_from_import",
    "plan_to_automation",
    "planner_of",
    "preview_import",
    "requester_from",
    "requester_from_headers",
    "scope_snapshot",
    "simulate",
    "structure_version",
    "validate_bundle",
    "validate_package",
    "validate_registry",
    "workflow_automation_preview",
    "workflows_of",
]
