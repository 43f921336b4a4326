"""From a failure report to a draft (reference §1.7 steps 3 to 12) and an incident.

Normalization, redaction (by profile), defaults, the signal quality gate, the
fingerprint and the initial approval status. Pure: storing is the service's job.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from .config import MonitorConfig, Project
from .config_validation import valid_repo
from .errors import bad_request
from .fingerprints import report_fingerprint
from .records import DRAFT_LISTS, Draft, Incident
from .redaction import profile_name, redact_text
from .routing import is_high_risk

SCALARS = (
    "project_id",
    "workspace_root",
    "log_source_id",
    "source_kind",
    "repo",
    "title",
    "detail",
    "source",
    "run_id",
    "session_id",
    "correlation_id",
    "file_name",
    "process",
    "component",
    "event",
    "level",
    "fingerprint",
    "confidence",
    "risk_level",
    "actor",
    "model",
    "tool_name",
    "action",
    "policy",
    "approval_state",
    "risk_category",
    "blast_radius",
    "expected_destination",
    "tenant_id",
    "workspace_id",
    "event_schema_version",
    "source_approval_policy",
    "redaction_profile",
    "retention_profile",
)
LISTS = (
    "excerpt",
    "external_correlation_ids",
    "route_tags",
    "allowed_destination_ids",
    "default_destination_ids",
    "evidence_refs",
)
# Routing fields a caller of the admin route may not forge (reference §1.29 item 2).
BINDING_FIELDS = (
    "project_id",
    "source_kind",
    "log_source_id",
    "route_tags",
    "allowed_destination_ids",
    "default_destination_ids",
    "tenant_id",
    "workspace_id",
    "event_schema_version",
    "source_approval_policy",
    "redaction_profile",
    "retention_profile",
)
SAFETY_FIELDS = (
    "actor",
    "model",
    "tool_name",
    "action",
    "policy",
    "approval_state",
    "risk_category",
    "blast_radius",
)
DETAIL_KEYS = (
    ("source", "source"),
    ("file", "file_name"),
    ("level", "level"),
    ("process", "process"),
    ("component", "component"),
    ("event", "event"),
    ("confidence", "confidence"),
    ("risk_level", "risk_level"),
    ("risk_category", "risk_category"),
    ("actor", "actor"),
    ("model", "model"),
    ("tool_name", "tool_name"),
    ("action", "action"),
    ("policy", "policy"),
    ("approval_state", "approval_state"),
    ("blast_radius", "blast_radius"),
    ("expected_destination", "expected_destination"),
    ("source_kind", "source_kind"),
    ("tenant_id", "tenant_id"),
    ("workspace_id", "workspace_id"),
    ("run_id", "run_id"),
    ("session_id", "session_id"),
    ("correlation_id", "correlation_id"),
)
NOISE = ("progress", "heartbeat", "started", "queued", "retrying", "attempt.started", "minor_retry")
MAX_TEXT = 20_000


def normalize(report: Mapping[str, Any]) -> dict[str, Any]:
    """Strings trimmed (empty dropped), lists trimmed, de-duplicated and capped at 50."""
    out: dict[str, Any] = {}
    for key in SCALARS:
        value = report.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if isinstance(value, str) and value.strip():
            out[key] = value.strip()[:MAX_TEXT]
    for key in LISTS:
        raw = report.get(key)
        if isinstance(raw, str):
            raw = raw.splitlines() if key == "excerpt" else [raw]
        if not isinstance(raw, list):
            out[key] = []
            continue
        items = [
            (v.rstrip() if key == "excerpt" else v.strip())[:2000]
            for v in raw
            if isinstance(v, str) and v.strip()
        ]
        out[key] = (items if key == "excerpt" else list(dict.fromkeys(items)))[:50]
    return out


def quality_gate(fields: Mapping[str, Any]) -> dict[str, Any]:
    event = (fields.get("event") or "").lower()
    gates = {
        "source_known": any(fields.get(k) for k in ("source", "component", "process", "event")),
        "type_classified": bool(fields.get("event") or fields.get("level")),
        "confidence_recorded": bool(fields.get("confidence")),
        "dedupe_checked": bool(fields.get("fingerprint")),
        "evidence_present": any(
            fields.get(k) for k in ("evidence_refs", "excerpt", "detail", "file_name")
        ),
        "destination_clear": bool(fields.get("expected_destination")),
        "risk_known": bool(fields.get("risk_level")),
        "not_routine_noise": not any(word in event for word in NOISE),
    }
    missing = [k for k, ok in gates.items() if not ok]
    return {
        "stage": "intake_to_draft",
        "status": "passed" if not missing else "blocked",
        "passed": not missing,
        "passed_count": len(gates) - len(missing),
        "total_count": len(gates),
        "gates": [{"key": k, "passed": ok} for k, ok in gates.items()],
        "missing": missing,
    }


def _detail(fields: Mapping[str, Any]) -> str:
    lines = [f"{label}: {fields[key]}" for label, key in DETAIL_KEYS if fields.get(key)]
    if fields.get("route_tags"):
        lines.append(f"route_tags: {', '.join(fields['route_tags'])}")
    if fields.get("external_correlation_ids"):
        lines.append(f"external_correlation_ids: {', '.join(fields['external_correlation_ids'])}")
    parts = ["\n".join(lines)] if lines else []
    if fields.get("detail"):
        parts.append(fields["detail"])
    if fields.get("excerpt"):
        parts.append("excerpt:\n" + "\n".join(f"  {line}" for line in fields["excerpt"]))
    if fields.get("evidence_refs"):
        parts.append("evidence_refs:\n" + "\n".join(f"  {r}" for r in fields["evidence_refs"]))
    return "\n\n".join(parts)


def approval_status(
    config: MonitorConfig, fields: Mapping[str, Any], project: Project | None
) -> str:
    policy = fields.get("source_approval_policy") or "inherit"
    high = is_high_risk(fields.get("risk_level"))
    if policy == "always":
        needed = True
    elif policy == "high_risk":
        needed = high
    elif policy == "never":
        needed = False
    else:
        needed = config.require_approval_for_new_issues or (
            config.safety_defaults.require_approval_for_high_risk and high
        )
    if project is not None and project.require_approval_for_new_issues:
        needed = True
    return "approval_required" if needed else "draft_ready"


def prepare(
    config: MonitorConfig, report: Mapping[str, Any], *, trusted_binding: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Normalized, defaulted, redacted report fields with the fingerprint, ready for a draft.

    ``trusted_binding`` carries the routing fields an intake key, a log source or the
    runtime follower established; without one every routing field is dropped.
    """
    fields = normalize(report)
    for key in BINDING_FIELDS:
        fields.pop(key, None)
    if trusted_binding:
        fields.update({k: v for k, v in trusted_binding.items() if v not in (None, "")})
    for key in LISTS:
        fields.setdefault(key, [])
    fields.setdefault("source", "manual")
    fields.setdefault("event", "manual.report")
    fields.setdefault("confidence", "medium")
    fields.setdefault("risk_level", "medium")
    fields.setdefault("expected_destination", "incident_monitor_issue_draft")
    floor = config.safety_defaults.minimum_risk_level
    if floor:
        from .routing import risk_rank

        if risk_rank(fields["risk_level"]) < risk_rank(floor):
            fields["risk_level"] = floor
    profile = profile_name(
        fields.get("redaction_profile") or config.safety_defaults.redaction_profile,
        redact_secrets=config.safety_defaults.redact_secrets,
    )
    if not config.safety_defaults.redact_secrets and not fields.get("redaction_profile"):
        profile = "off"
    # Safety-context fields are always redacted; the rest follow the profile.
    for key in SAFETY_FIELDS:
        if key in fields:
            fields[key] = redact_text(fields[key], profile if profile != "off" else "default")
    fields["external_correlation_ids"] = [
        redact_text(v, "default") for v in fields["external_correlation_ids"]
    ]
    for key in ("title", "detail", "file_name", "process", "component", "event", "source"):
        if key in fields:
            fields[key] = redact_text(fields[key], profile)
    fields["excerpt"] = [redact_text(line, profile) for line in fields["excerpt"]]
    fields["evidence_refs"] = [redact_text(r, profile) for r in fields["evidence_refs"]]
    fields["applied_redaction_profile"] = profile
    repo = fields.get("repo") or config.repo
    if repo and not valid_repo(repo):
        raise bad_request("REPORT_INVALID", "repo must be in owner/repo format", field="repo")
    fields["repo"] = repo or ""
    where = fields.get("event") or fields.get("component") or fields.get("process")
    fields["title"] = fields.get("title") or f"Failure detected in {where}"
    fields["detail"] = _detail(fields)
    fields["fingerprint"] = fields.get("fingerprint") or report_fingerprint(
        repo=fields["repo"],
        title=fields["title"],
        detail=fields["detail"],
        source=fields.get("source"),
        run_id=fields.get("run_id"),
        session_id=fields.get("session_id"),
        correlation_id=fields.get("correlation_id"),
    )
    fields["quality_gate"] = quality_gate(fields)
    return fields


# The governance context both a draft and an incident carry.
GOVERNANCE_FIELDS = (
    "confidence",
    "risk_level",
    "actor",
    "model",
    "tool_name",
    "action",
    "policy",
    "approval_state",
    "risk_category",
    "blast_radius",
    "expected_destination",
    "tenant_id",
    "workspace_id",
    "event_schema_version",
    "source_approval_policy",
    "redaction_profile",
    "retention_profile",
    "quality_gate",
)

DRAFT_FIELDS = (
    "repo",
    "fingerprint",
    "title",
    "detail",
    "project_id",
    "log_source_id",
    "source_kind",
    *GOVERNANCE_FIELDS,
    "applied_redaction_profile",
    "source",
    "event",
)


def new_draft(
    config: MonitorConfig, fields: Mapping[str, Any], *, now_ms: int, project: Project | None
) -> Draft:
    doc: dict[str, Any] = {k: fields[k] for k in DRAFT_FIELDS if fields.get(k) is not None}
    for key in DRAFT_LISTS:
        doc[key] = list(fields.get(key) or [])
    doc.update(
        draft_id=f"failure-draft-{uuid.uuid4().hex}",
        status=approval_status(config, fields, project),
        created_at_ms=now_ms,
        updated_at_ms=now_ms,
        first_seen_at_ms=now_ms,
        last_seen_at_ms=now_ms,
        occurrence_count=1,
    )
    return Draft(doc)


INCIDENT_FIELDS = (
    "repo",
    "fingerprint",
    "title",
    "detail",
    "project_id",
    "log_source_id",
    "source_kind",
    "source",
    "run_id",
    "session_id",
    "correlation_id",
    "component",
    "level",
    *GOVERNANCE_FIELDS,
    "workspace_root",
)


def new_incident(
    fields: Mapping[str, Any],
    *,
    event_type: str,
    status: str,
    now_ms: int,
    event_payload: Mapping[str, Any] | None = None,
) -> Incident:
    doc: dict[str, Any] = {k: fields[k] for k in INCIDENT_FIELDS if fields.get(k) is not None}
    for key in (*DRAFT_LISTS, "excerpt"):
        doc[key] = list(fields.get(key) or [])
    doc.setdefault("workspace_root", "")
    doc.update(
        incident_id=f"failure-incident-{uuid.uuid4().hex}",
        event_type=event_type,
        status=status,
        occurrence_count=1,
        created_at_ms=now_ms,
        updated_at_ms=now_ms,
        first_seen_at_ms=now_ms,
        last_seen_at_ms=now_ms,
    )
    if event_payload is not None:
        doc["event_payload"] = dict(event_payload)
    return Incident(doc)
