"""Workflows: YAML-defined workflows and hooks, workflow runs with approval gates, and the workflow planner."""

from __future__ import annotations

from ..lazy import LazyExports

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
            "compare_replay",
            "compile_package",
            "export_bundle",
            "scope_snapshot",
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
