"""Records of the incident monitor: config, status, intake keys, incidents, drafts, posts."""

from __future__ import annotations

from ..registry import Record
from .common import ARR, BOOL, INT, NULL_INT, NULL_OBJ, OBJ, STR, STRS, array_of, obj, of

INCIDENT = Record("Incident", obj({"incident_id": STR}, {"status": STR}))
DRAFT = Record("IncidentDraft", obj({"draft_id": STR, "fingerprint": STR}, {"status": STR}))
POST = Record("IncidentPost", obj({"post_id": STR}, {"draft_id": STR, "destination_id": STR}))
MONITOR_CONFIG = Record("IncidentMonitorConfig", obj({"incident_monitor": OBJ}))
MONITOR_STATUS = Record("IncidentMonitorStatus", obj({"status": OBJ}))
MONITOR_PAUSED = Record("IncidentMonitorPaused", obj({"ok": BOOL}))
MONITOR_DEBUG = Record(
    "IncidentMonitorDebug",
    obj({"status": OBJ, "selected_server_tools": {}, "canonicalized_discovered_tools": {}}),
)
ROUTE_PREVIEW = Record(
    "IncidentRoutePreview",
    obj(
        {
            "matches": ARR,
            "destinations": ARR,
            "default_destination_ids": STRS,
            "effective_destination_ids": STRS,
            "approval_required": BOOL,
            "blocked": BOOL,
            "blocked_reasons": ARR,
        },
        {"readiness": {}, "source_readiness": {}, "source_readiness_warnings": ARR},
    ),
)
REPORTED = Record(
    "IncidentReported",
    {
        **obj(
            {},
            {
                "draft": {},
                "incident": {},
                "deduplicated": BOOL,
                "suppressed": BOOL,
                "reason": STR,
                "duplicate_summary": {},
                "duplicate_matches": {},
            },
        ),
        # A report makes (or finds) a draft, or is suppressed as a known failure pattern.
        "anyOf": [{"required": ["draft", "deduplicated"]}, {"required": ["suppressed"]}],
    },
)
INTAKE_KEY = Record(
    "IncidentIntakeKey",
    obj(
        {
            "key_id": STR,
            "project_id": {},
            "name": {},
            "key_hash": STR,
            "enabled": BOOL,
            "scopes": STRS,
            "created_at_ms": INT,
            "last_used_at_ms": NULL_INT,
        }
    ),
)
INTAKE_KEYS = Record("IncidentIntakeKeys", obj({"keys": array_of(INTAKE_KEY)}))
INTAKE_KEY_ENVELOPE = Record(
    "IncidentIntakeKeyEnvelope", obj({"key": of(INTAKE_KEY)}, {"raw_key": STR})
)
INCIDENTS = Record("Incidents", obj({"incidents": array_of(INCIDENT), "count": INT}))
INCIDENT_ENVELOPE = Record("IncidentEnvelope", obj({"incident": of(INCIDENT)}))
DRAFTS = Record("IncidentDrafts", obj({"drafts": array_of(DRAFT), "count": INT}))
DRAFT_ENVELOPE = Record(
    "IncidentDraftEnvelope",
    obj(
        {"draft": of(DRAFT)},
        {
            "ok": BOOL,
            "run": {},
            "deduped": BOOL,
            "triage_summary": {},
            "issue_draft": {},
            "action": STR,
            "outcomes": ARR,
            "posts": ARR,
            "post": NULL_OBJ,
        },
    ),
)
POSTS = Record("IncidentPosts", obj({"posts": array_of(POST), "count": INT}))
DELETED = Record("IncidentItemsDeleted", obj({"ok": BOOL, "deleted": {}}))
REPLAYED = Record(
    "IncidentReplayed",
    obj({"ok": BOOL, "draft": of(DRAFT), "incident": of(INCIDENT)}, {"run": {}, "deduped": BOOL}),
)
LOG_SOURCE_STATE = Record("IncidentLogSourceState", obj({"project_id": STR, "source_id": STR}))

RECORDS = (
    INCIDENT,
    DRAFT,
    POST,
    MONITOR_CONFIG,
    MONITOR_STATUS,
    MONITOR_PAUSED,
    MONITOR_DEBUG,
    ROUTE_PREVIEW,
    REPORTED,
    INTAKE_KEY,
    INTAKE_KEYS,
    INTAKE_KEY_ENVELOPE,
    INCIDENTS,
    INCIDENT_ENVELOPE,
    DRAFTS,
    DRAFT_ENVELOPE,
    POSTS,
    DELETED,
    REPLAYED,
    LOG_SOURCE_STATE,
)
