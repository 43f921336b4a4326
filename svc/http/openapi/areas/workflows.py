"""Workflows, their runs, hooks and gates, and the workflow planner."""

from ..records import workflows as w
from ..registry import op, q_int

R = "svc.http.routes.workflows"
P = "svc.workflows.planner_requests"

OPERATIONS = {
    "list_workflows": op("Loaded workflows", returns=w.WORKFLOWS),
    "get_workflow": op("A workflow", returns=w.WORKFLOW_DETAIL),
    "validate_workflows": op(
        "Validate (and reload) the workflow files",
        body=f"{R}:ValidateBody",
        returns=w.WORKFLOW_VALIDATION,
    ),
    "simulate_workflow_event": op(
        "Which hooks an event would fire",
        body=f"{R}:SimulateBody",
        body_required=True,
        returns=w.WORKFLOW_SIMULATION,
    ),
    "run_workflow": op("Run a workflow", body=f"{R}:RunBody", returns=w.WORKFLOW_RUN_ENVELOPE),
    "list_workflow_runs": op("Workflow runs", returns=w.WORKFLOW_RUNS, query=(q_int("limit"),)),
    "get_workflow_run": op("A workflow run", returns=w.WORKFLOW_RUN_ENVELOPE),
    "cancel_workflow_run": op(
        "Cancel a workflow run", body=f"{R}:CancelBody", returns=w.WORKFLOW_RUN_ENVELOPE
    ),
    "decide_workflow_gate": op(
        "Decide a run's approval gate",
        body=f"{R}:GateBody",
        body_required=True,
        returns=w.WORKFLOW_RUN_ENVELOPE,
    ),
    "list_workflow_hooks": op("Hook bindings", returns=w.WORKFLOW_HOOKS),
    "patch_workflow_hook": op(
        "Enable or disable a hook binding",
        body=f"{R}:HookPatchBody",
        body_required=True,
        returns=w.WORKFLOW_HOOK_ENVELOPE,
    ),
    "workflow_events": op(
        "Workflow events as a stream",
        stream=("workflow.run.started", "workflow.run.completed", "workflow.run.failed"),
    ),
    "context_run_events": op(
        "Context-run events as a stream",
        stream=("workflow.run.started", "workflow.run.completed", "workflow.run.failed"),
    ),
    "preview_plan": op(
        "Draft a plan (nothing saved)",
        body=f"{P}:PlanRequest",
        body_required=True,
        returns=w.PLAN_VIEW,
    ),
    "start_plan_chat": op(
        "Start a planner chat", body=f"{P}:PlanRequest", body_required=True, returns=w.PLAN_CHAT
    ),
    "plan_chat_message": op(
        "Revise a plan by chat",
        body=f"{P}:ChatMessageRequest",
        body_required=True,
        returns=w.PLAN_CHAT,
    ),
    "reset_plan_chat": op(
        "Reset a planner chat", body=f"{P}:PlanIdRequest", body_required=True, returns=w.PLAN_CHAT
    ),
    "apply_plan": op("Apply a plan", body=f"{P}:ApplyRequest", body_required=True),
    "preview_plan_import": op(
        "Preview importing a plan bundle", body=f"{P}:ImportRequest", body_required=True
    ),
    "import_plan": op("Import a plan bundle", body=f"{P}:ImportRequest", body_required=True),
    "get_plan": op("A plan", returns=w.PLAN_CHAT),
    "list_planner_sessions": op("Planner sessions", returns=w.PLANNER_SESSIONS),
    "get_planner_session": op("A planner session", returns=w.PLANNER_SESSION),
}
