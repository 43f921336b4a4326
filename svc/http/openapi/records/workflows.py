"""Records of workflows: definitions, runs, hooks, validation and the planner's views."""

from __future__ import annotations

from ..registry import Record
from .common import (
    ARR,
    BOOL,
    INT,
    OBJ,
    STR,
    array_of,
    map_of,
    obj,
    of,
)

WORKFLOW_HOOK = Record(
    "WorkflowHook",
    obj(
        {
            "binding_id": STR,
            "workflow_id": STR,
            "event": STR,
            "enabled": BOOL,
            "actions": array_of(obj({"action": STR})),
        },
        {"source": OBJ},
    ),
)
WORKFLOW = Record(
    "Workflow",
    obj(
        {
            "workflow_id": STR,
            "name": STR,
            "enabled": BOOL,
            "steps": array_of(obj({"step_id": STR, "action": STR})),
            "hooks": array_of(WORKFLOW_HOOK),
        },
        {"description": STR, "automation_id": STR, "source": OBJ},
    ),
)
WORKFLOWS = Record(
    "Workflows",
    obj({"workflows": array_of(WORKFLOW), "automation_previews": OBJ, "count": INT}),
)
WORKFLOW_DETAIL = Record(
    "WorkflowDetail",
    obj({"workflow": of(WORKFLOW), "hooks": array_of(WORKFLOW_HOOK), "automation_preview": {}}),
)
WORKFLOW_VALIDATION = Record(
    "WorkflowValidation",
    obj(
        {
            "messages": array_of(obj({"severity": STR, "message": STR})),
            "registry": obj({"workflows": map_of(WORKFLOW), "hooks": array_of(WORKFLOW_HOOK)}),
        }
    ),
)
WORKFLOW_SIMULATION = Record("WorkflowSimulation", obj({"simulation": OBJ}))
WORKFLOW_RUN = Record(
    "WorkflowRun",
    obj(
        {
            "run_id": STR,
            "workflow_id": STR,
            "status": STR,
            "trigger_type": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
            "actions": array_of(obj({"action_id": STR, "action": STR, "status": STR})),
            "gate_history": ARR,
        },
        {
            "finished_at_ms": INT,
            "awaiting_gate": OBJ,
            "binding_id": STR,
            "trigger_event": STR,
            "source_event_id": STR,
            "task_id": STR,
            "workspace_root": STR,
            "automation_id": STR,
            "automation_run_id": STR,
            "source": OBJ,
            "detail": STR,
        },
    ),
)
WORKFLOW_RUN_ENVELOPE = Record("WorkflowRunEnvelope", obj({"run": of(WORKFLOW_RUN)}, {"ok": BOOL}))
WORKFLOW_RUNS = Record("WorkflowRuns", obj({"runs": array_of(WORKFLOW_RUN), "count": INT}))
WORKFLOW_HOOKS = Record("WorkflowHooks", obj({"hooks": array_of(WORKFLOW_HOOK), "count": INT}))
WORKFLOW_HOOK_ENVELOPE = Record("WorkflowHookEnvelope", obj({"hook": of(WORKFLOW_HOOK)}))
PLAN_VIEW = Record(
    "PlanView",
    obj(
        {
            "plan": OBJ,
            "plan_revision": INT,
            "plan_package": {},
            "plan_package_validation": {},
        },
        {"clarifier": {}, "assistant_message": {}, "change_summary": {}},
    ),
)
PLAN_CHAT = Record("PlanChat", {"allOf": [of(PLAN_VIEW), obj({"conversation": {}})]})
PLANNER_SESSIONS = Record("PlannerSessions", obj({"sessions": array_of(OBJ), "count": INT}))
PLANNER_SESSION = Record("PlannerSession", obj({"session": OBJ}))

RECORDS = (
    WORKFLOW_HOOK,
    WORKFLOW,
    WORKFLOWS,
    WORKFLOW_DETAIL,
    WORKFLOW_VALIDATION,
    WORKFLOW_SIMULATION,
    WORKFLOW_RUN,
    WORKFLOW_RUN_ENVELOPE,
    WORKFLOW_RUNS,
    WORKFLOW_HOOKS,
    WORKFLOW_HOOK_ENVELOPE,
    PLAN_VIEW,
    PLAN_CHAT,
    PLANNER_SESSIONS,
    PLANNER_SESSION,
)
