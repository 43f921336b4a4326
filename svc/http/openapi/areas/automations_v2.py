"""Automations v2 (multi-agent DAGs): ``/automations/v2`` and its agent governance."""

from ..records import automations_v2 as v
from ..registry import ANY_BODY, op, q_int
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
    "run.paused",
    "run.resumed",
    "run.recovered",
    "run.repaired",
    "automation.v2.webhook_trigger.created",
    "automation.v2.webhook_trigger.updated",
    "automation.v2.webhook_trigger.rotated",
    "automation.v2.webhook_trigger.deleted",
    "automation.v2.webhook.accepted",
    "automation.v2.webhook.rejected",
)

OPERATIONS = {
    "automations_v2_events": op("Automation v2 events as a stream", stream=EVENTS),
    "create_v2": op("Create an automation v2", body=ANY_BODY, returns=v.AUTOMATION_V2_ENVELOPE),
    "list_v2": op(
        "Automations v2 (`view=summary` for summaries)",
        returns=v.AUTOMATIONS_V2,
        query=("status", "view"),
    ),
    "get_v2": op("An automation v2", returns=v.AUTOMATION_V2_ENVELOPE),
    "patch_v2": op("Change an automation v2", body=ANY_BODY, returns=v.AUTOMATION_V2_ENVELOPE),
    "delete_v2": op("Delete an automation v2", returns=v.AUTOMATION_V2_ENVELOPE),
    "run_v2_now": op("Run an automation v2 now", body=ANY_BODY, returns=v.AUTOMATION_V2_STARTED),
    "v2_automation_runs": op(
        "An automation's v2 runs", returns=v.AUTOMATION_V2_RUNS, query=(q_int("limit"),)
    ),
    "v2_runs": op(
        "Automation v2 runs", returns=v.AUTOMATION_V2_RUNS, query=(q_int("limit"), "automation_id")
    ),
    "v2_run": op("An automation v2 run", returns=v.AUTOMATION_V2_RUN_ENVELOPE),
    "cancel_v2_run": op(
        "Cancel an automation v2 run", body=REASON, returns=v.AUTOMATION_V2_RUN_ENVELOPE
    ),
    "decide_v2_gate": op(
        "Decide a v2 run's gate", body=ANY_BODY, returns=v.AUTOMATION_V2_RUN_ENVELOPE
    ),
    "pause_v2": op(
        "Pause an automation v2 (no scheduled runs)", body=REASON, returns=v.AUTOMATION_V2_ENVELOPE
    ),
    "resume_v2": op(
        "Resume a paused automation v2", body=ANY_BODY, returns=v.AUTOMATION_V2_ENVELOPE
    ),
    "pause_v2_run": op(
        "Pause a queued or running v2 run", body=REASON, returns=v.AUTOMATION_V2_RUN_ENVELOPE
    ),
    "resume_v2_run": op(
        "Resume a paused v2 run", body=REASON, returns=v.AUTOMATION_V2_RUN_ENVELOPE
    ),
    "recover_v2_run": op(
        "Run a failed, cancelled or paused v2 run again from its completed nodes",
        body=REASON,
        returns=v.AUTOMATION_V2_RUN_ENVELOPE,
    ),
    "repair_v2_run": op(
        "Give a node repair guidance and run it again",
        body=ANY_BODY,
        returns=v.AUTOMATION_V2_RUN_ENVELOPE,
    ),
    "preview_v2_task_reset": op(
        "Which nodes a task reset would touch", returns=v.TASK_RESET_PREVIEW
    ),
    "retry_v2_task": op(
        "Run a node and everything downstream again",
        body=REASON,
        returns=v.AUTOMATION_V2_RUN_ENVELOPE,
    ),
    "continue_v2_task": op(
        "Run a node again, keeping its attempts", body=REASON, returns=v.AUTOMATION_V2_RUN_ENVELOPE
    ),
    "requeue_v2_task": op(
        "Put a node back in the queue with its attempts reset",
        body=REASON,
        returns=v.AUTOMATION_V2_RUN_ENVELOPE,
    ),
    "claim_v2_backlog_task": op(
        "Claim a pending node of a run", body=ANY_BODY, returns=v.AUTOMATION_V2_RUN_ENVELOPE
    ),
    "requeue_v2_backlog_task": op(
        "Release a node's claim (an unfinished node is queued again)",
        body=REASON,
        returns=v.AUTOMATION_V2_RUN_ENVELOPE,
    ),
    "list_v2_webhook_triggers": op("An automation's webhook triggers", returns=v.WEBHOOK_TRIGGERS),
    "create_v2_webhook_trigger": op(
        "Create a webhook trigger (its secret is in this reply only: `new_secret`)",
        body=ANY_BODY,
        returns=v.WEBHOOK_TRIGGER_ENVELOPE,
    ),
    "get_v2_webhook_trigger": op(
        "A webhook trigger (never its secret)", returns=v.WEBHOOK_TRIGGER_ENVELOPE
    ),
    "update_v2_webhook_trigger": op(
        "Change a webhook trigger", body=ANY_BODY, returns=v.WEBHOOK_TRIGGER_ENVELOPE
    ),
    "disable_v2_webhook_trigger": op(
        "Disable a webhook trigger", body=ANY_BODY, returns=v.WEBHOOK_TRIGGER_ENVELOPE
    ),
    "delete_v2_webhook_trigger": op("Delete a webhook trigger", returns=v.WEBHOOK_TRIGGER_DELETED),
    "rotate_v2_webhook_secret": op(
        "Replace a webhook trigger's secret (the new one is in this reply only)",
        body=ANY_BODY,
        returns=v.WEBHOOK_TRIGGER_ENVELOPE,
    ),
    "list_v2_webhook_deliveries": op(
        "A webhook trigger's deliveries, newest first",
        returns=v.WEBHOOK_DELIVERIES,
        query=(q_int("limit"),),
    ),
    "get_v2_webhook_delivery": op(
        "One delivery of a webhook trigger", returns=v.WEBHOOK_DELIVERY_ENVELOPE
    ),
    "receive_v2_webhook": op(
        'A signed delivery (`x-svc-signature: t=<ms>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) '
        "starts a run of the trigger's automation",
        body=ANY_BODY,
        returns=v.WEBHOOK_RECEIVED,
        status=202,
        also=(200,),
    ),
    "agent_governance": op("An agent's governance state", returns=v.AGENT_GOVERNANCE),
    "govern_agent": op(
        "Apply a governance action to an agent", body=ANY_BODY, returns=v.AGENT_GOVERNANCE
    ),
}
