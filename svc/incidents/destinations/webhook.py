"""Signed webhook delivery (SPEC §5.7, reference §1.16).

The body is signed with HMAC-SHA256 over ``"<ms>.<raw body>"`` (``x-svc-signature:
t=<ms>,v1=<hex>``) with the secret ``webhook_secret_ref`` names, read from the engine's
environment at delivery time and never stored or echoed. The URL goes through the
engine's outbound guard: https unless ``allow_insecure_http``, no credentials, the
exact-host allowlist, private addresses refused unless ``allow_private_networks``,
every DNS answer checked and the connection pinned to a checked address, no redirect.
A retry inside one delivery reuses its delivery id and idempotency key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import httpx
import trio

from ... import __version__
from ..config import Destination, MonitorConfig
from ..redaction import redact_value
from ..webhook_policy import WebhookPolicy, resolve_secret, target_ref
from .base import Adapter, Delivery, DeliveryContext

SCHEME = "svc_hmac_sha256_v1"
EVENT = "incident_monitor.incident"
SCHEMA_VERSION = "2026-06-29"
RETRYABLE_STATUSES = frozenset({408, 425, 429})


def sign(secret: str, timestamp_ms: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp_ms}.".encode() + body, hashlib.sha256)
    return f"t={timestamp_ms},v1={digest.hexdigest()}"


def _cut(value: Any, limit: int) -> Any:
    return value[:limit] if isinstance(value, str) else value


DRAFT_KEYS = (
    "draft_id",
    "fingerprint",
    "repo",
    "project_id",
    "log_source_id",
    "source_kind",
    "tenant_id",
    "workspace_id",
    "event_schema_version",
    "status",
    "title",
    "risk_level",
    "risk_category",
    "actor",
    "model",
    "tool_name",
    "action",
    "policy",
    "approval_state",
    "blast_radius",
    "external_correlation_ids",
    "confidence",
    "expected_destination",
    "route_tags",
    "quality_gate",
    "triage_run_id",
    "occurrence_count",
    "first_seen_at_ms",
)
INCIDENT_KEYS = (
    "incident_id",
    "fingerprint",
    "event_type",
    "status",
    "repo",
    "workspace_root",
    "title",
    "project_id",
    "log_source_id",
    "source_kind",
    "source",
    "component",
    "level",
    "risk_level",
    "risk_category",
    "occurrence_count",
    "created_at_ms",
    "updated_at_ms",
    "last_seen_at_ms",
)


def build_payload(ctx: DeliveryContext, now_ms: int) -> dict[str, Any]:
    draft = ctx.draft.doc
    body = {k: draft.get(k) for k in DRAFT_KEYS}
    body["detail"] = _cut(draft.get("detail"), 4000)
    body["evidence_digest"] = ctx.evidence_digest
    body["evidence_refs"] = list(draft.get("evidence_refs") or [])[:20]
    incident = None
    if ctx.incident is not None:
        doc = ctx.incident.doc
        incident = {k: doc.get(k) for k in INCIDENT_KEYS}
        incident["detail"] = _cut(doc.get("detail"), 4000)
        incident["excerpt"] = [_cut(line, 500) for line in (doc.get("excerpt") or [])[:20]]
    payload = {
        "event": EVENT,
        "schema_version": SCHEMA_VERSION,
        "delivery_id": ctx.delivery_id,
        "idempotency_key": ctx.idempotency_key,
        "created_at_ms": now_ms,
        "destination": {
            "destination_id": ctx.destination.destination_id,
            "kind": "webhook",
            "route_id": ctx.match.route_id,
            "route_match_reason": ctx.match.reason,
            "target_ref": ctx.target_ref,
        },
        "draft": body,
        "incident": incident,
        "issue_draft": draft.get("issue_draft"),
        "triage_summary": draft.get("triage_summary"),
    }
    # The draft and incident parts passed intake redaction already; the triage summary
    # and issue draft were written since (by a model or an operator), so they are
    # redacted here, credential-named fields included.
    for key in ("issue_draft", "triage_summary"):
        payload[key] = redact_value(payload[key], "default")
    return payload


def _retryable(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


class WebhookAdapter(Adapter):
    kind = "webhook"
    operation = "post_webhook"
    kind_tag = "webhook"

    def target_ref(self, config: MonitorConfig, destination: Destination) -> str:
        return target_ref(destination.webhook_url or "")

    async def deliver(self, ctx: DeliveryContext) -> Delivery:
        from ...net import UrlRefused, guarded_stream

        engine = ctx.service.engine
        client = ctx.service.webhook_clients.for_destination(ctx.destination)
        policy, guard = client.policy, client.guard
        secret = resolve_secret(ctx.destination.webhook_secret_ref, engine.settings.environ)
        url = ctx.destination.webhook_url or ""
        payload = build_payload(ctx, ctx.service.now_ms())
        raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
        receipt: dict[str, Any] = {
            "provider": "webhook",
            "destination_id": ctx.destination.destination_id,
            "operation": self.operation,
            "delivery_id": ctx.delivery_id,
            "target_ref": ctx.target_ref,
            "route_id": ctx.match.route_id,
            "route_match_reason": ctx.match.reason,
            "signature_scheme": SCHEME,
            "status_code": None,
            "attempt_count": 0,
            "response_truncated": False,
            "payload_bytes": len(raw),
            "attempts": [],
        }
        if secret is None:
            return self._failed(receipt, "Webhook secret reference is unavailable")
        if len(raw) > policy.payload_byte_limit:
            return self._failed(
                receipt,
                f"Webhook payload is {len(raw)} bytes, exceeding configured limit of "
                f"{policy.payload_byte_limit} bytes",
            )
        excerpt = ""
        for attempt in range(1, policy.max_attempts + 1):
            if attempt > 1:
                await trio.sleep(0.025 * attempt)
            now = ctx.service.now_ms()
            headers = {
                "content-type": "application/json",
                "user-agent": f"svc-incident-monitor/{__version__}",
                "x-svc-event": EVENT,
                "x-svc-delivery-id": ctx.delivery_id,
                "x-svc-signature": sign(secret, now, raw),
                "x-svc-signature-scheme": SCHEME,
                "idempotency-key": ctx.idempotency_key,
            }
            record: dict[str, Any] = {"attempt": attempt, "status_code": None, "retryable": False}
            receipt["attempt_count"] = attempt
            try:
                status, excerpt, truncated = await _post(
                    client.transport, url, guard, policy, headers, raw, guarded_stream
                )
            except UrlRefused as exc:
                record["error"] = exc.message
                receipt["attempts"].append(record)
                return self._failed(receipt, f"webhook URL refused: {exc.message}")
            except (httpx.HTTPError, OSError, trio.TooSlowError) as exc:
                record.update(retryable=True, error=type(exc).__name__)
                receipt["attempts"].append(record)
                if attempt < policy.max_attempts:
                    continue
                return self._failed(receipt, f"webhook request failed: {type(exc).__name__}")
            record.update(
                status_code=status,
                retryable=_retryable(status),
                response_excerpt=excerpt,
                response_truncated=truncated,
            )
            receipt["attempts"].append(record)
            receipt.update(status_code=status, response_truncated=truncated)
            if 200 <= status < 300:
                receipt["status"] = "posted"
                return Delivery(
                    ok=True,
                    action=self.operation,
                    draft_status="webhook_posted",
                    receipt=receipt,
                    external_id=ctx.delivery_id,
                    external_title="Webhook delivery",
                    response_excerpt=excerpt,
                )
            if not _retryable(status) or attempt == policy.max_attempts:
                return self._failed(receipt, f"webhook answered HTTP {status}", excerpt)
        return self._failed(receipt, "webhook delivery failed", excerpt)

    def _failed(self, receipt: dict[str, Any], error: str, excerpt: str | None = None) -> Delivery:
        receipt["status"] = "failed"
        return Delivery(
            ok=False,
            action=self.operation,
            draft_status="webhook_post_failed",
            receipt=receipt,
            error=error[:500],
            response_excerpt=excerpt,
            external_title="Webhook delivery",
        )


async def _post(
    client: httpx.AsyncHTTPTransport,
    url: str,
    guard: Any,
    policy: WebhookPolicy,
    headers: dict[str, str],
    raw: bytes,
    guarded_stream: Any,
) -> tuple[int, str, bool]:
    timeout = policy.timeout_ms / 1000
    with trio.fail_after(timeout * 2):
        async with guarded_stream(
            client, "POST", url, guard, headers=headers, content=raw, timeout=timeout
        ) as response:
            body = b""
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > policy.response_byte_limit:
                    break
    truncated = len(body) > policy.response_byte_limit
    text = body[: policy.response_byte_limit].decode("utf-8", "replace").strip()
    from ..redaction import redact_text

    return response.status_code, redact_text(text, "default"), truncated
