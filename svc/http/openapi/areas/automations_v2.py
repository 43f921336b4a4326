"""Automations v2 (multi-agent DAGs): ``/automations/v2`` and its agent governance."""

from ..registry import ANY_BODY, OBJECT, op, q_int
from .automations import REASON

EVENTS = (
    "automation.v2.created",
    "automation.v2.updated",
    "automation.v2.deleted",
    "automation.v2.run.created",
    "run.started",
    "run.step",
    "node_skipped",
    "approval.required",
    "run.completed",
    "run.failed",
    "run.cancelled",
)

OPERATIONS = {
    "automations_v2_events": op("Automation v2 events as a stream", stream=EVENTS),
    "create_v2": op("Create an automation v2", body=ANY_BODY, returns=OBJECT),
    "list_v2": op(
        "Automations v2 (`view=summary` for summaries)",
        returns=OBJECT,
        query=("status", "view"),
    ),
    "get_v2": op("An automation v2", returns=OBJECT),
    "patch_v2": op("Change an automation v2", body=ANY_BODY, returns=OBJECT),
    "delete_v2": op("Delete an automation v2", returns=OBJECT),
    "run_v2_now": op("Run an automation v2 now", body=ANY_BODY, returns=OBJECT),
    "v2_automation_runs": op("An automation's v2 runs", returns=OBJECT, query=(q_int("limit"),)),
    "v2_runs": op("Automation v2 runs", returns=OBJECT, query=(q_int("limit"), "automation_id")),
    "v2_run": op("An automation v2 run", returns=OBJECT),
    "cancel_v2_run": op("Cancel an automation v2 run", body=REASON, returns=OBJECT),
    "decide_v2_gate": op("Decide a v2 run's gate", body=ANY_BODY, returns=OBJECT),
    "agent_governance": op("An agent's governance state", returns=OBJECT),
    "govern_agent": op("Apply a governance action to an agent", body=ANY_BODY, returns=OBJECT),
}
