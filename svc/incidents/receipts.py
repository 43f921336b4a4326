"""What a publish records: the receipt (post) of a delivery, its audit base, its event."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from .destinations import Delivery
from .records import Draft, Incident, Post
from .routing import RouteMatch


def build_post(
    now: int,
    draft: Draft,
    incident: Incident | None,
    match: RouteMatch,
    destination: Any,
    operation: str,
    key: str,
    digest: str,
    target: str,
    delivery: Delivery,
) -> Post:
    doc: dict[str, Any] = {
        "post_id": f"failure-post-{uuid.uuid4().hex}",
        "draft_id": draft.draft_id,
        "incident_id": incident.incident_id if incident else None,
        "fingerprint": draft.fingerprint,
        "repo": draft.repo,
        "operation": operation,
        "status": "posted" if delivery.ok else "failed",
        "destination_id": destination.destination_id,
        "destination_kind": destination.kind,
        "route_id": match.route_id,
        "route_match_reason": match.reason,
        "external_id": delivery.external_id,
        "external_url": delivery.external_url,
        "external_title": delivery.external_title,
        "issue_number": delivery.issue_number,
        "comment_id": delivery.comment_id,
        "comment_url": delivery.comment_url,
        "target_ref": target,
        "receipt": dict(delivery.receipt),
        "attempt_count": delivery.receipt.get("attempt_count", 1),
        "status_code": delivery.receipt.get("status_code"),
        "delivery_id": delivery.receipt.get("delivery_id"),
        "evidence_digest": digest,
        "confidence": draft.get("confidence"),
        "risk_level": draft.get("risk_level"),
        "expected_destination": draft.get("expected_destination"),
        "evidence_refs": list(draft.get("evidence_refs", []))[:20],
        "idempotency_key": key,
        "response_excerpt": delivery.response_excerpt,
        "error": delivery.error,
        "tenant_id": draft.get("tenant_id"),
        "workspace_id": draft.get("workspace_id"),
        "created_at_ms": now,
        "updated_at_ms": now,
    }
    return Post({k: v for k, v in doc.items() if v is not None or k == "route_id"})


def delivered_event(kind: str) -> str:
    return {
        "webhook": "incident_monitor.webhook.posted",
        "telemetry": "incident_monitor.telemetry.recorded",
        "internal_memory": "incident_monitor.internal_memory.stored",
    }.get(kind, f"incident_monitor.{kind}.published")


def audit_base(
    draft: Draft, incident: Incident | None, match: RouteMatch, requested: Sequence[str], mode: str
) -> dict[str, Any]:
    return {
        "draft_id": draft.draft_id,
        "incident_id": incident.incident_id if incident else None,
        "mode": mode,
        "requested_destination_ids": list(requested),
        "selected_destination_ids": list(match.destination_ids),
        "route_ids": [match.route_id] if match.route_id else [],
        "route_match_reason": match.reason,
        "approval_required": match.approval_required,
        "fingerprint": draft.fingerprint,
        "repo": draft.repo,
        "status": draft.status,
        "risk_level": draft.get("risk_level"),
        "confidence": draft.get("confidence"),
        "project_id": draft.get("project_id"),
        "log_source_id": draft.get("log_source_id"),
        "tenant_id": draft.get("tenant_id"),
    }
