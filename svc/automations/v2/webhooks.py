"""Webhook triggers of automations v2: a signed ``POST /webhooks/automations/{trigger_id}``
starts a run.

A trigger has a signing secret, shown once (at creation and at each rotation) and
stored as a secret (see :mod:`.webhook_repository`). A delivery is accepted when its
``x-svc-signature: t=<unix ms>,v1=<hex>`` is the HMAC-SHA256, keyed by the secret, of
``"<t>." + <raw body>`` (the scheme of the engine's own outbound webhooks,
``svc_hmac_sha256_v1``), compared in constant time, with ``t`` within
:data:`WINDOW_MS` of now. A delivery id (``x-svc-delivery-id``, else ``idempotency-key``,
else the signature's timestamp and the body digest) makes it replay-safe: the same id
again is answered ``duplicate`` with the first delivery's run, and starts nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import Conflict, NotFound, SvcError
from .webhook_fields import (
    DELIVERY_HEADERS,
    SCHEME,
    WINDOW_MS,
    new_secret,
    parse_signature,
    preview,
    signature,
    trigger_fields,
    with_secret,
)
from .webhook_repository import WebhookRepository

if TYPE_CHECKING:
    from .service import V2Service


class WebhookTriggerNotFound(NotFound):
    code = "AUTOMATION_V2_WEBHOOK_TRIGGER_NOT_FOUND"


class WebhookDeliveryNotFound(NotFound):
    code = "AUTOMATION_V2_WEBHOOK_DELIVERY_NOT_FOUND"


class WebhookRejected(SvcError):
    """A delivery whose signature, timestamp or trigger state is not acceptable."""

    code = "AUTOMATION_V2_WEBHOOK_REJECTED"
    status = 401


class WebhookTriggers:
    def __init__(self, v2: V2Service, repo: WebhookRepository) -> None:
        self.v2 = v2
        self.repo = repo

    # ------------------------------------------------------------------ management
    async def create(
        self, automation_id: str, body: Mapping[str, Any]
    ) -> tuple[dict[str, Any], str]:
        """A new trigger and its secret (the only time the secret is shown, with rotation)."""
        self.v2.require(automation_id)
        now = self.v2.now_ms()
        trigger_id = f"whk_{uuid.uuid4().hex}"
        record: dict[str, Any] = {
            "trigger_id": trigger_id,
            "automation_id": automation_id,
            "name": None,
            "provider": "generic",
            "provider_event_kind": None,
            "enabled": True,
            "tenant_label": None,
            "owning_org_unit_id": None,
            "resource_scope": None,
            "default_data_class": "internal",
            "default_risk_tier": "medium",
            "signature_scheme": SCHEME,
            "created_at_ms": now,
            "updated_at_ms": now,
            "secret_version": 0,
        }
        record.update(trigger_fields(body, creating=True))
        secret = new_secret()
        record = with_secret(record, secret, now, rotated_by=None)
        await self.repo.save_trigger(record, secret)
        self._publish("automation.v2.webhook_trigger.created", record)
        return record, secret

    async def require(self, automation_id: str, trigger_id: str) -> dict[str, Any]:
        record = await self.repo.trigger(trigger_id)
        if record is None or record["automation_id"] != automation_id:
            raise WebhookTriggerNotFound(
                f"webhook trigger `{trigger_id}` not found",
                automationID=automation_id,
                triggerID=trigger_id,
            )
        return record

    async def all_for(self, automation_id: str) -> list[dict[str, Any]]:
        self.v2.require(automation_id)
        return await self.repo.triggers(automation_id)

    async def update(
        self, automation_id: str, trigger_id: str, body: Mapping[str, Any]
    ) -> dict[str, Any]:
        record = await self.require(automation_id, trigger_id)
        record = {
            **record,
            **trigger_fields(body, creating=False),
            "updated_at_ms": self.v2.now_ms(),
        }
        await self.repo.save_trigger(record)
        self._publish("automation.v2.webhook_trigger.updated", record)
        return record

    async def rotate(
        self, automation_id: str, trigger_id: str, by: str
    ) -> tuple[dict[str, Any], str]:
        record = await self.require(automation_id, trigger_id)
        now = self.v2.now_ms()
        secret = new_secret()
        record = with_secret({**record, "updated_at_ms": now}, secret, now, rotated_by=by)
        await self.repo.save_trigger(record, secret)
        self._publish("automation.v2.webhook_trigger.rotated", record)
        return record, secret

    async def delete(self, automation_id: str, trigger_id: str) -> None:
        record = await self.require(automation_id, trigger_id)
        await self.repo.delete_trigger(trigger_id)
        self._publish("automation.v2.webhook_trigger.deleted", record)

    async def wire(self, record: Mapping[str, Any], base_url: str | None) -> dict[str, Any]:
        """The trigger as clients see it: no secret, its callback and its delivery counts."""
        counts = await self.repo.counts(record["trigger_id"])
        wire = {k: v for k, v in record.items() if k not in ("secret_version", "secret_status")}
        path = f"/webhooks/automations/{record['trigger_id']}"
        wire.update(
            {
                "id": record["trigger_id"],
                "callback_path": path,
                "callback_url": f"{base_url.rstrip('/')}{path}" if base_url else None,
                "secret_status": dict(record.get("secret_status") or {}),
                "delivery_counts": {
                    "total": sum(counts.values()),
                    **{
                        s: counts.get(s, 0)
                        for s in (
                            "received",
                            "accepted",
                            "rejected",
                            "duplicate",
                            "disabled",
                            "failed",
                        )
                    },
                },
                "provider_metadata": {
                    "canonical_provider": record.get("provider"),
                    "provider_event_kind": record.get("provider_event_kind"),
                    "event_id_headers": list(DELIVERY_HEADERS),
                    "verification": {"signature_scheme": SCHEME, "provider_specific": False},
                    "polling": {"supported": False, "reconciliation_supported": False},
                },
            }
        )
        return wire

    # ------------------------------------------------------------------ deliveries
    async def deliveries(
        self, automation_id: str, trigger_id: str, limit: int
    ) -> list[dict[str, Any]]:
        await self.require(automation_id, trigger_id)
        return await self.repo.deliveries(trigger_id, limit)

    async def delivery(
        self, automation_id: str, trigger_id: str, delivery_id: str
    ) -> dict[str, Any]:
        await self.require(automation_id, trigger_id)
        found = await self.repo.delivery(trigger_id, delivery_id)
        if found is None:
            raise WebhookDeliveryNotFound(
                f"delivery `{delivery_id}` not found", triggerID=trigger_id, deliveryID=delivery_id
            )
        return found

    async def receive(
        self, trigger_id: str, body: bytes, headers: Mapping[str, str]
    ) -> dict[str, Any]:
        """Verify a public delivery and start a run; the delivery record (raises
        :class:`WebhookRejected` or :class:`Conflict` after recording a refused delivery)."""
        trigger = await self.repo.trigger(trigger_id)
        secret = await self.repo.secret(trigger_id) if trigger is not None else None
        if trigger is None or secret is None:
            raise WebhookTriggerNotFound(
                f"webhook trigger `{trigger_id}` not found", triggerID=trigger_id
            )
        now = self.v2.now_ms()
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        event_id = next((headers[h] for h in DELIVERY_HEADERS if headers.get(h)), None)
        delivery: dict[str, Any] = {
            "delivery_id": f"whd_{uuid.uuid4().hex}",
            "trigger_id": trigger_id,
            "automation_id": trigger["automation_id"],
            "provider_event_id": event_id,
            "body_digest": digest,
            "status": "received",
            "verification_scheme": SCHEME,
            "verification_provider": trigger.get("provider"),
            "received_at_ms": now,
            "sanitized_preview": preview(body),
        }
        reason = self._verify(secret, body, headers.get("x-svc-signature"), now)
        if reason is not None:
            await self._refuse(trigger, delivery, "rejected", reason)
            raise WebhookRejected(
                "the delivery's signature is not valid", reasonCode=reason, triggerID=trigger_id
            )
        parsed = parse_signature(headers.get("x-svc-signature"))
        assert parsed is not None  # verified above
        key = f"id:{event_id}" if event_id else f"sig:{parsed[0]}:{digest}"
        delivery.update({"idempotency_key": key, "verification_reason_code": "verified"})
        automation = await self.v2.get(trigger["automation_id"])
        if not trigger.get("enabled") or automation is None or automation.status != "active":
            why = "trigger_disabled" if not trigger.get("enabled") else "automation_not_active"
            await self._refuse(trigger, delivery, "disabled", why)
            raise Conflict(
                "the trigger or its automation is not active",
                code="AUTOMATION_V2_WEBHOOK_DISABLED",
                reasonCode=why,
                triggerID=trigger_id,
            )
        if not await self.repo.add_delivery(delivery, key):
            first = await self.repo.delivery_by_key(trigger_id, key) or {}
            delivery.update(
                {
                    "status": "duplicate",
                    "dedupe_result": "duplicate",
                    "dedupe_reason_code": "delivery_id_seen",
                    "duplicate_of_delivery_id": first.get("delivery_id"),
                    "duplicate_of_run_id": first.get("queued_run_id"),
                }
            )
            await self.repo.add_delivery(delivery, None)
            await self._touch(trigger, "last_received_at_ms", now)
            return delivery
        try:
            run = await self.v2.create_run(
                trigger["automation_id"],
                trigger_type="webhook",
                trigger_reason=f"webhook trigger {trigger.get('name') or trigger_id}",
                context={
                    "webhook": {
                        "trigger_id": trigger_id,
                        "delivery_id": delivery["delivery_id"],
                        "provider": trigger.get("provider"),
                        "provider_event_kind": trigger.get("provider_event_kind"),
                        "provider_event_id": event_id,
                        "payload": delivery["sanitized_preview"],
                    }
                },
            )
        except SvcError as exc:
            delivery.update({"status": "failed", "rejection_reason_code": exc.code})
            await self.repo.update_delivery(delivery)
            raise
        delivery.update(
            {
                "status": "accepted",
                "dedupe_result": "new",
                "accepted_at_ms": now,
                "queued_run_id": run.run_id,
                "queued_run_path": f"/automations/v2/runs/{run.run_id}",
            }
        )
        await self.repo.update_delivery(delivery)
        await self._touch(trigger, "last_accepted_at_ms", now)
        self._publish(
            "automation.v2.webhook.accepted",
            trigger,
            deliveryID=delivery["delivery_id"],
            runID=run.run_id,
        )
        return delivery

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _verify(secret: str, body: bytes, header: str | None, now: int) -> str | None:
        parsed = parse_signature(header)
        if parsed is None:
            return "signature_missing"
        timestamp, given = parsed
        if abs(now - timestamp) > WINDOW_MS:
            return "timestamp_out_of_window"
        expected = signature(secret, timestamp, body).rpartition("v1=")[2]
        # Constant time: the comparison must not tell how much of a forgery was right.
        if not hmac.compare_digest(expected, given):
            return "signature_mismatch"
        return None

    async def _refuse(
        self, trigger: Mapping[str, Any], delivery: dict[str, Any], status: str, reason: str
    ) -> None:
        now = delivery["received_at_ms"]
        delivery.update({"status": status, "rejection_reason_code": reason, "rejected_at_ms": now})
        if status == "rejected":
            delivery["verification_reason_code"] = reason
        await self.repo.add_delivery(delivery, None)
        await self._touch(trigger, "last_rejected_at_ms", now)
        self._publish(
            "automation.v2.webhook.rejected",
            trigger,
            deliveryID=delivery["delivery_id"],
            reasonCode=reason,
        )

    async def _touch(self, trigger: Mapping[str, Any], field: str, now: int) -> None:
        fresh = await self.repo.trigger(trigger["trigger_id"]) or dict(trigger)
        await self.repo.save_trigger({**fresh, "last_received_at_ms": now, field: now})

    def _publish(self, type: str, trigger: Mapping[str, Any], **properties: Any) -> None:
        self.v2.engine.events.publish(
            type,
            {
                "automationID": trigger["automation_id"],
                "triggerID": trigger["trigger_id"],
                **properties,
            },
            topic="automations/v2",
        )


__all__ = [
    "SCHEME",
    "WINDOW_MS",
    "WebhookDeliveryNotFound",
    "WebhookRejected",
    "WebhookTriggerNotFound",
    "WebhookTriggers",
    "signature",
]
