"""The parts of :mod:`.webhooks` that need no engine: the signature scheme, a trigger body's
writable fields, secrets and a delivery body's preview."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from typing import Any

from ...errors import ValidationFailed
from ...logs import redact

SCHEME = "svc_hmac_sha256_v1"
WINDOW_MS = 5 * 60 * 1000
"""How far a signature's timestamp may be from now, either way."""
DELIVERY_HEADERS = ("x-svc-delivery-id", "idempotency-key")
PREVIEW_LIMIT = 2_000
DATA_CLASSES = ("public", "internal", "confidential", "restricted")
RISK_TIERS = ("low", "medium", "high", "critical")


def signature(secret: str, timestamp_ms: int, body: bytes) -> str:
    """The ``x-svc-signature`` value of ``body`` at ``timestamp_ms`` (the same scheme as
    svc/incidents/destinations/webhook.py signs outbound deliveries with)."""
    digest = hmac.new(secret.encode(), f"{timestamp_ms}.".encode() + body, hashlib.sha256)
    return f"t={timestamp_ms},v1={digest.hexdigest()}"


def parse_signature(header: str | None) -> tuple[int, str] | None:
    if not header:
        return None
    parts = dict(p.strip().partition("=")[::2] for p in header.split(",") if "=" in p)
    t, v1 = parts.get("t", ""), parts.get("v1", "")
    if not t.isdigit() or not v1:
        return None
    return int(t), v1.lower()


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def with_secret(
    record: dict[str, Any], secret: str, now: int, *, rotated_by: str | None
) -> dict[str, Any]:
    version = int(record.get("secret_version") or 0) + 1
    status = dict(record.get("secret_status") or {})
    status.update(
        {
            "configured": True,
            "secret_version": version,
            # A fingerprint, to tell secrets apart; the secret cannot be recovered from it.
            "fingerprint": "sha256:" + hashlib.sha256(secret.encode()).hexdigest()[:16],
        }
    )
    status.setdefault("created_at_ms", now)
    if rotated_by is not None:
        status.update({"rotated_at_ms": now, "rotated_by": rotated_by})
    return {**record, "secret_version": version, "secret_status": status}


def trigger_fields(body: Mapping[str, Any], *, creating: bool) -> dict[str, Any]:
    """The writable fields of a create or update body (snake_case or camelCase names)."""
    if not isinstance(body, Mapping):
        raise ValidationFailed("request body must be a JSON object", field="$")
    aliases = {
        "providerEventKind": "provider_event_kind",
        "signatureScheme": "signature_scheme",
        "owningOrgUnitId": "owning_org_unit_id",
        "resourceScope": "resource_scope",
        "defaultDataClass": "default_data_class",
        "defaultRiskTier": "default_risk_tier",
        "tenantLabel": "tenant_label",
    }
    data = {aliases.get(k, k): v for k, v in body.items()}
    out: dict[str, Any] = {}
    for name in ("name", "provider", "provider_event_kind", "tenant_label", "owning_org_unit_id"):
        if name in data and data[name] is not None:
            if not isinstance(data[name], str) or not data[name].strip():
                raise ValidationFailed(f"`{name}` must be a non-empty string", field=name)
            out[name] = data[name].strip()
    if "enabled" in data:
        if not isinstance(data["enabled"], bool):
            raise ValidationFailed("`enabled` must be a boolean", field="enabled")
        out["enabled"] = data["enabled"]
    if data.get("resource_scope") is not None:
        if not isinstance(data["resource_scope"], Mapping):
            raise ValidationFailed("`resource_scope` must be an object", field="resource_scope")
        out["resource_scope"] = json.loads(json.dumps(data["resource_scope"]))
    for name, allowed in (
        ("default_data_class", DATA_CLASSES),
        ("default_risk_tier", RISK_TIERS),
    ):
        if data.get(name) is not None:
            if data[name] not in allowed:
                raise ValidationFailed(f"`{name}` must be one of {', '.join(allowed)}", field=name)
            out[name] = data[name]
    scheme = data.get("signature_scheme")
    if scheme is not None and scheme != SCHEME:
        raise ValidationFailed(
            f"`signature_scheme` must be {SCHEME} (the only scheme this engine verifies)",
            field="signature_scheme",
        )
    if creating and "name" not in out:
        out["name"] = out.get("provider_event_kind") or "webhook"
    return out


def preview(body: bytes) -> Any:
    """What a run (and the delivery log) keeps of the body: the JSON value when it is small,
    else its top-level keys; never the raw bytes of something larger."""
    try:
        value = json.loads(body or b"null")
    except ValueError:
        return {"content_type": "non_json", "bytes": len(body)}
    if len(body) <= PREVIEW_LIMIT:
        # Credential-looking fields of a sender's payload stay out of runs and records.
        return redact(value)
    if isinstance(value, Mapping):
        return {"keys": sorted(map(str, value))[:50], "bytes": len(body), "truncated": True}
    return {"bytes": len(body), "truncated": True}


__all__ = [
    "DELIVERY_HEADERS",
    "SCHEME",
    "WINDOW_MS",
    "new_secret",
    "parse_signature",
    "preview",
    "signature",
    "trigger_fields",
    "with_secret",
]
