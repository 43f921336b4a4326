"""Webhook triggers of automations v2 (on the ``automations_v2`` blueprint): manage them under
``/automations/v2/{id}/webhook-triggers``, and the public ``POST /webhooks/automations/{id}``
that a sender signs (see :mod:`svc.automations.v2.webhooks` for the signature and replay
rules). Secrets appear in exactly two replies: creation and rotation (``new_secret``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quart import request

from ..request import engine, object_body, query_int
from .automations import principal
from .automations_v2 import bp

BASE = "/automations/v2/<automation_id>/webhook-triggers"


def _webhooks() -> Any:
    return engine().automations.v2.webhooks


async def _trigger(record: Mapping[str, Any]) -> dict[str, Any]:
    return await _webhooks().wire(record, request.host_url)


@bp.get(BASE)
async def list_v2_webhook_triggers(automation_id: str) -> Any:
    records = await _webhooks().all_for(automation_id)
    triggers = [await _trigger(r) for r in records]
    return {"automationID": automation_id, "triggers": triggers, "count": len(triggers)}


@bp.post(BASE)
async def create_v2_webhook_trigger(automation_id: str) -> Any:
    record, secret = await _webhooks().create(automation_id, await object_body())
    # The one reply (with rotation) that carries the secret: the sender signs with it.
    return {"trigger": await _trigger(record), "new_secret": secret, "secret_one_time": True}


@bp.get(BASE + "/<trigger_id>")
async def get_v2_webhook_trigger(automation_id: str, trigger_id: str) -> Any:
    return {"trigger": await _trigger(await _webhooks().require(automation_id, trigger_id))}


@bp.patch(BASE + "/<trigger_id>")
async def update_v2_webhook_trigger(automation_id: str, trigger_id: str) -> Any:
    record = await _webhooks().update(automation_id, trigger_id, await object_body())
    return {"trigger": await _trigger(record)}


@bp.post(BASE + "/<trigger_id>/disable")
async def disable_v2_webhook_trigger(automation_id: str, trigger_id: str) -> Any:
    await object_body()
    record = await _webhooks().update(automation_id, trigger_id, {"enabled": False})
    return {"trigger": await _trigger(record)}


@bp.delete(BASE + "/<trigger_id>")
async def delete_v2_webhook_trigger(automation_id: str, trigger_id: str) -> Any:
    await _webhooks().delete(automation_id, trigger_id)
    return {"ok": True, "deleted": True, "trigger_id": trigger_id, "triggerID": trigger_id}


@bp.post(BASE + "/<trigger_id>/rotate-secret")
async def rotate_v2_webhook_secret(automation_id: str, trigger_id: str) -> Any:
    await object_body()
    by = principal().agent_id or "operator"
    record, secret = await _webhooks().rotate(automation_id, trigger_id, by)
    return {"trigger": await _trigger(record), "new_secret": secret, "secret_one_time": True}


@bp.get(BASE + "/<trigger_id>/deliveries")
async def list_v2_webhook_deliveries(automation_id: str, trigger_id: str) -> Any:
    limit = query_int("limit", default=50, minimum=1, maximum=500, clamp=True) or 50
    found = await _webhooks().deliveries(automation_id, trigger_id, limit)
    return {"deliveries": found, "count": len(found), "limit": limit}


@bp.get(BASE + "/<trigger_id>/deliveries/<delivery_id>")
async def get_v2_webhook_delivery(automation_id: str, trigger_id: str, delivery_id: str) -> Any:
    found = await _webhooks().delivery(automation_id, trigger_id, delivery_id)
    return {"delivery": found}


@bp.post("/webhooks/automations/<trigger_id>")
async def receive_v2_webhook(trigger_id: str) -> Any:
    # No engine token here: the signature over the raw body authenticates the sender.
    raw = await request.get_data(cache=True)
    headers = {k.lower(): v for k, v in request.headers.items()}
    delivery = await _webhooks().receive(trigger_id, raw, headers)
    status = 200 if delivery["status"] == "duplicate" else 202
    return {"ok": True, **delivery, "delivery": delivery}, status


__all__ = ["bp"]
