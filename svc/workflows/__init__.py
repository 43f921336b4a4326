"""Workflows: YAML-defined workflows and hooks, workflow runs with approval gates, and the workflow
planner."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    # The same names, for type checkers: at run time each loads with its module.
    from .actions import ActionInvalid, ParsedAction, parse_action  # noqa: F401
    from .automation_spec import workflow_automation_preview  # noqa: F401
    from .component import WorkflowsComponent, planner_of, workflows_of  # noqa: F401
    from .context_stream import (  # noqa: F401
        MAX_TAIL,
        ContextRuns,
        normalize_workspace,
        parse_run_ids,
    )
    from .definitions import (  # noqa: F401
        ValidationMessage,
        WorkflowAction,
        WorkflowHook,
        WorkflowRegistry,
        WorkflowSourceRef,
        WorkflowSpec,
        WorkflowStep,
    )
    from .errors import (  # noqa: F401
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
    from .loading import LoadResult, LoadSource, load_registry  # noqa: F401
    from .materialize import plan_to_automation  # noqa: F401
    from .plan_import import plan_from_import, preview_import, validate_bundle  # noqa: F401
    from .plan_package import compile_package, export_bundle, scope_snapshot  # noqa: F401
    from .plan_package_replay import compare_replay  # noqa: F401
    from .plan_package_validation import validate_package  # noqa: F401
    from .planner import Planner  # noqa: F401
    from .planner_requests import (  # noqa: F401
        ApplyRequest,
        ChatMessageRequest,
        ImportRequest,
        PlanIdRequest,
        PlanRequest,
    )
    from .planner_service import PlannerService  # noqa: F401
    from .plans import PlanStep, WorkflowPlan  # noqa: F401
    from .requester import (  # noqa: F401
        AGENT_ID_HEADER,
        REQUEST_SOURCE_HEADER,
        Requester,
        requester_from,
        requester_from_headers,
    )
    from .runs import ActionRun, GateDecision, PendingGate, WorkflowRun  # noqa: F401
    from .service import WorkflowService  # noqa: F401
    from .simulation import Simulation, canonical_event_names, simulate  # noqa: F401
    from .studio import RESEARCH_STAGES, migrate_studio_workflow, structure_version  # noqa: F401
    from .studio_migration import (  # noqa: F401
        migrate_stored_studio_workflow,
        migrate_stored_studio_workflows,
    )
    from .validation import validate_registry  # noqa: F401

_exports = LazyExports(
    __name__,
    {
        ".actions": [
            "ActionInvalid",
            "ParsedAction",
            "parse_action",
        ],
        ".automation_spec": [
            "workflow_automation_preview",
        ],
        ".component": [
            "WorkflowsComponent",
            "planner_of",
            "workflows_of",
        ],
        ".context_stream": [
            "MAX_TAIL",
            "ContextRuns",
            "normalize_workspace",
            "parse_run_ids",
        ],
        ".definitions": [
            "ValidationMessage",
            "WorkflowAction",
            "WorkflowHook",
            "WorkflowRegistry",
            "WorkflowSourceRef",
            "WorkflowSpec",
            "WorkflowStep",
        ],
        ".errors": [
            "AutomationsUnavailable",
            "GateExpired",
            "GateInvalidDecision",
            "GateReplayed",
            "GateRequiresHuman",
            "ImportIncompatible",
            "PlanInvalid",
            "PlannerSessionNotFound",
            "PlanNotFound",
            "RunNotAwaitingApproval",
            "WorkflowDisabled",
            "WorkflowHookNotFound",
            "WorkflowNotFound",
            "WorkflowRunNotActive",
            "WorkflowRunNotFound",
            "WorkflowsUnavailable",
        ],
        ".loading": [
            "LoadResult",
            "LoadSource",
            "load_registry",
        ],
        ".materialize": [
            "plan_to_automation",
        ],
        ".plan_import": [
            "plan_from_import",
            "preview_import",
            "validate_bundle",
        ],
        ".plan_package": [
            "compile_package",
            "export_bundle",
            "scope_snapshot",
        ],
        ".plan_package_replay": [
            "compare_replay",
        ],
        ".plan_package_validation": [
            "validate_package",
        ],
        ".planner": [
            "Planner",
        ],
        ".planner_requests": [
            "ApplyRequest",
            "ChatMessageRequest",
            "ImportRequest",
            "PlanIdRequest",
            "PlanRequest",
        ],
        ".planner_service": [
            "PlannerService",
        ],
        ".plans": [
            "PlanStep",
            "WorkflowPlan",
        ],
        ".requester": [
            "AGENT_ID_HEADER",
            "REQUEST_SOURCE_HEADER",
            "Requester",
            "requester_from",
            "requester_from_headers",
        ],
        ".runs": [
            "ActionRun",
            "GateDecision",
            "PendingGate",
            "WorkflowRun",
        ],
        ".service": [
            "WorkflowService",
        ],
        ".simulation": [
            "Simulation",
            "canonical_event_names",
            "simulate",
        ],
        ".studio": [
            "RESEARCH_STAGES",
            "migrate_studio_workflow",
            "structure_version",
        ],
        ".studio_migration": [
            "migrate_stored_studio_workflow",
            "migrate_stored_studio_workflows",
        ],
        ".validation": [
            "validate_registry",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
