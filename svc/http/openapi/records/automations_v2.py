"""Records of automations v2: definitions, runs, node controls, webhook triggers, governance."""

from __future__ import annotations

from ..registry import Record
from .common import BOOL, INT, NULL_INT, NULL_STR, OBJ, STR, STRS, array_of, obj, of

AUTOMATION_V2 = Record(
    "AutomationV2",
    obj(
        {
            "automation_id": STR,
            "status": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
            "next_fire_at_ms": NULL_INT,
            "last_fired_at_ms": NULL_INT,
        },
        {
            "name": STR,
            "creator_id": {},
            "creator_type": {},
            "definition_hash": STR,
            "node_count": INT,
            "agent_count": INT,
        },
    ),
)
AUTOMATION_V2_ENVELOPE = Record(
    "AutomationV2Envelope",
    obj({"automation": of(AUTOMATION_V2)}, {"ok": BOOL, "reason": NULL_STR}),
)
AUTOMATIONS_V2 = Record(
    "AutomationsV2", obj({"automations": array_of(AUTOMATION_V2), "count": INT})
)
AUTOMATION_V2_RUN = Record(
    "AutomationV2Run",
    obj(
        {
            "run_id": STR,
            "automation_id": STR,
            "trigger_type": STR,
            "status": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
            "started_at_ms": NULL_INT,
            "finished_at_ms": NULL_INT,
            "allowed_tools": STRS,
            "checkpoint": OBJ,
            "node_statuses": {"type": "object", "additionalProperties": STR},
            "node_outputs": OBJ,
            "contextRunID": STR,
            "linked_context_run_id": STR,
        },
        {"trigger_reason": NULL_STR, "latest_session_id": NULL_STR},
    ),
)
_LINKS = {"contextRunID": STR, "linked_context_run_id": STR}
AUTOMATION_V2_STARTED = Record(
    "AutomationV2Started",
    obj({"ok": BOOL, "dry_run": BOOL, "run": of(AUTOMATION_V2_RUN), **_LINKS}),
)
AUTOMATION_V2_RUNS = Record(
    "AutomationV2Runs",
    obj({"runs": array_of(AUTOMATION_V2_RUN), "count": INT}, {"automationID": STR}),
)
AUTOMATION_V2_RUN_ENVELOPE = Record(
    "AutomationV2RunEnvelope",
    obj(
        {"run": of(AUTOMATION_V2_RUN)},
        {
            "ok": BOOL,
            "node_id": STR,
            "reset_nodes": STRS,
            "repaired_node_ids": STRS,
            "released_claim": {},
            "task": {},
        },
    ),
)
TASK_RESET_PREVIEW = Record(
    "AutomationV2TaskResetPreview",
    obj(
        {
            "ok": BOOL,
            "run_id": STR,
            "node_id": STR,
            "reset_nodes": STRS,
            "preserved_nodes": STRS,
            "node_statuses": OBJ,
            "run_active": BOOL,
        }
    ),
)
WEBHOOK_TRIGGER = Record(
    "WebhookTrigger",
    obj(
        {
            "trigger_id": STR,
            "id": STR,
            "automation_id": STR,
            "callback_path": STR,
            "callback_url": NULL_STR,
            "delivery_counts": obj({"total": INT}),
        }
    ),
)
WEBHOOK_TRIGGERS = Record(
    "WebhookTriggers",
    obj({"automationID": STR, "triggers": array_of(WEBHOOK_TRIGGER), "count": INT}),
)
WEBHOOK_TRIGGER_ENVELOPE = Record(
    "WebhookTriggerEnvelope",
    obj({"trigger": of(WEBHOOK_TRIGGER)}, {"new_secret": STR, "secret_one_time": BOOL}),
)
WEBHOOK_TRIGGER_DELETED = Record(
    "WebhookTriggerDeleted",
    obj({"ok": BOOL, "deleted": BOOL, "trigger_id": STR, "triggerID": STR}),
)
WEBHOOK_DELIVERY = Record(
    "WebhookDelivery",
    obj({"delivery_id": STR, "trigger_id": STR, "automation_id": STR, "status": STR}),
)
WEBHOOK_DELIVERIES = Record(
    "WebhookDeliveries",
    obj({"deliveries": array_of(WEBHOOK_DELIVERY), "count": INT, "limit": {}}),
)
WEBHOOK_DELIVERY_ENVELOPE = Record(
    "WebhookDeliveryEnvelope", obj({"delivery": of(WEBHOOK_DELIVERY)})
)
WEBHOOK_RECEIVED = Record(
    "WebhookReceived",
    obj(
        {"ok": BOOL, "delivery_id": STR, "status": STR, "delivery": of(WEBHOOK_DELIVERY)},
    ),
)
AGENT_GOVERNANCE = Record(
    "AgentGovernance",
    obj(
        {
            "agent": obj(
                {
                    "created_total": INT,
                    "created_last_24h": INT,
                    "active_authored": INT,
                    "spend_last_7d_usd": {"type": "number"},
                }
            )
        },
        {"ok": BOOL},
    ),
)

RECORDS = (
    AUTOMATION_V2,
    AUTOMATION_V2_ENVELOPE,
    AUTOMATIONS_V2,
    AUTOMATION_V2_RUN,
    AUTOMATION_V2_STARTED,
    AUTOMATION_V2_RUNS,
    AUTOMATION_V2_RUN_ENVELOPE,
    TASK_RESET_PREVIEW,
    WEBHOOK_TRIGGER,
    WEBHOOK_TRIGGERS,
    WEBHOOK_TRIGGER_ENVELOPE,
    WEBHOOK_TRIGGER_DELETED,
    WEBHOOK_DELIVERY,
    WEBHOOK_DELIVERIES,
    WEBHOOK_DELIVERY_ENVELOPE,
    WEBHOOK_RECEIVED,
    AGENT_GOVERNANCE,
)
