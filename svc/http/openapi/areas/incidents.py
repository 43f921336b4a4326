"""The incident monitor: config, intake, drafts, incidents, posts, status, keys, log sources."""

from ..registry import ANY_BODY, OBJECT, op, q_int

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
    "get_config": op("The incident monitor's config", returns=OBJECT),
    "patch_config": op("Replace the incident monitor's config", body=ANY_BODY, returns=OBJECT),
    "pause": op("Pause the incident monitor", returns=OBJECT),
    "resume": op("Resume the incident monitor", returns=OBJECT),
    "status": op("The incident monitor's status (recomputed)", returns=OBJECT),
    "debug": op("The incident monitor's debug view", returns=OBJECT),
    "route_preview": op("Preview where a report would be routed", body=ANY_BODY, returns=OBJECT),
    "report": op("Report an incident (engine token)", body=ANY_BODY, returns=OBJECT),
    "intake_report": op(
        "Report an incident with a project's intake key (no engine token)",
        body=ANY_BODY,
        returns=OBJECT,
    ),
    "intake_keys": op("Intake keys", returns=OBJECT),
    "create_intake_key": op(
        "Create an intake key (its secret is shown once)", body=ANY_BODY, returns=OBJECT
    ),
    "disable_intake_key": op("Disable an intake key", returns=OBJECT),
    "list_incidents": op("Incidents", returns=OBJECT, query=LIMIT),
    "bulk_delete_incidents": op("Delete incidents", body=IDS, returns=OBJECT),
    "get_incident": op("An incident", returns=OBJECT),
    "delete_incident": op("Delete an incident", returns=OBJECT),
    "replay_incident": op("Replay an incident through triage", returns=OBJECT),
    "list_drafts": op("Drafts", returns=OBJECT, query=LIMIT),
    "bulk_delete_drafts": op("Delete drafts", body=IDS, returns=OBJECT),
    "get_draft": op("A draft", returns=OBJECT),
    "delete_draft": op("Delete a draft", returns=OBJECT),
    "approve_draft": op("Approve a draft", body=REASON, returns=OBJECT),
    "deny_draft": op("Deny a draft", body=REASON, returns=OBJECT),
    "triage_run": op("Start a triage run for a draft", returns=OBJECT),
    "triage_summary": op("Record a draft's triage summary", body=ANY_BODY, returns=OBJECT),
    "issue_draft": op("Write the issue draft of a draft", returns=OBJECT),
    "publish_draft": op(
        "Publish a draft to destinations",
        body={
            "type": "object",
            "properties": {
                "destination_id": {"type": "string"},
                "destination_ids": {"type": "array", "items": {"type": "string"}},
            },
        },
        returns=OBJECT,
    ),
    "recheck_match": op("Recheck a draft's match against published posts", returns=OBJECT),
    "list_posts": op("Posts", returns=OBJECT, query=(*LIMIT, "destination_id")),
    "bulk_delete_posts": op("Delete posts", body=IDS, returns=OBJECT),
    "delete_post": op("Delete a post", returns=OBJECT),
    "reset_offset": op("Reset a log source's read offset", returns=OBJECT),
    "replay_latest": op("Replay a log source's latest entries", returns=OBJECT),
}
