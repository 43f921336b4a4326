"""The incident monitor: config, intake, drafts, incidents, posts, status, keys, log sources."""

from ..records import incidents as i
from ..registry import ANY_BODY, op, q_int

REASON = {"type": "object", "properties": {"reason": {"type": "string"}}}
IDS = {
    "type": "object",
    "properties": {
        "ids": {"type": "array", "items": {"type": "string"}},
        "all": {"type": "boolean"},
    },
}
LIMIT = (q_int("limit"),)

OPERATIONS = {
    "get_config": op("The incident monitor's config", returns=i.MONITOR_CONFIG),
    "patch_config": op(
        "Replace the incident monitor's config", body=ANY_BODY, returns=i.MONITOR_CONFIG
    ),
    "pause": op("Pause the incident monitor", returns=i.MONITOR_PAUSED),
    "resume": op("Resume the incident monitor", returns=i.MONITOR_PAUSED),
    "status": op("The incident monitor's status (recomputed)", returns=i.MONITOR_STATUS),
    "debug": op("The incident monitor's debug view", returns=i.MONITOR_DEBUG),
    "route_preview": op(
        "Preview where a report would be routed", body=ANY_BODY, returns=i.ROUTE_PREVIEW
    ),
    "report": op("Report an incident (engine token)", body=ANY_BODY, returns=i.REPORTED),
    "intake_report": op(
        "Report an incident with a project's intake key (no engine token)",
        body=ANY_BODY,
        returns=i.REPORTED,
    ),
    "intake_keys": op("Intake keys", returns=i.INTAKE_KEYS),
    "create_intake_key": op(
        "Create an intake key (its secret is shown once)",
        body=ANY_BODY,
        returns=i.INTAKE_KEY_ENVELOPE,
    ),
    "disable_intake_key": op("Disable an intake key", returns=i.INTAKE_KEY_ENVELOPE),
    "list_incidents": op("Incidents", returns=i.INCIDENTS, query=LIMIT),
    "bulk_delete_incidents": op("Delete incidents", body=IDS, returns=i.DELETED),
    "get_incident": op("An incident", returns=i.INCIDENT_ENVELOPE),
    "delete_incident": op("Delete an incident", returns=i.DELETED),
    "replay_incident": op("Replay an incident through triage", returns=i.REPLAYED),
    "list_drafts": op("Drafts", returns=i.DRAFTS, query=LIMIT),
    "bulk_delete_drafts": op("Delete drafts", body=IDS, returns=i.DELETED),
    "get_draft": op("A draft", returns=i.DRAFT_ENVELOPE),
    "delete_draft": op("Delete a draft", returns=i.DELETED),
    "approve_draft": op("Approve a draft", body=REASON, returns=i.DRAFT_ENVELOPE),
    "deny_draft": op("Deny a draft", body=REASON, returns=i.DRAFT_ENVELOPE),
    "triage_run": op("Start a triage run for a draft", returns=i.DRAFT_ENVELOPE),
    "triage_summary": op(
        "Record a draft's triage summary", body=ANY_BODY, returns=i.DRAFT_ENVELOPE
    ),
    "issue_draft": op("Write the issue draft of a draft", returns=i.DRAFT_ENVELOPE),
    "publish_draft": op(
        "Publish a draft to destinations",
        body={
            "type": "object",
            "properties": {
                "destination_id": {"type": "string"},
                "destination_ids": {"type": "array", "items": {"type": "string"}},
            },
        },
        returns=i.DRAFT_ENVELOPE,
    ),
    "recheck_match": op(
        "Recheck a draft's match against published posts", returns=i.DRAFT_ENVELOPE
    ),
    "list_posts": op("Posts", returns=i.POSTS, query=(*LIMIT, "destination_id")),
    "bulk_delete_posts": op("Delete posts", body=IDS, returns=i.DELETED),
    "delete_post": op("Delete a post", returns=i.DELETED),
    "reset_offset": op("Reset a log source's read offset", returns=i.LOG_SOURCE_STATE),
    "replay_latest": op("Replay a log source's latest entries", returns=i.LOG_SOURCE_STATE),
}
