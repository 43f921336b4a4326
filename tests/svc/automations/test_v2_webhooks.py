"""Webhook triggers of automations v2: management routes, secrets shown once, and the public
signed route that starts a run (signature, timestamp window, replays)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

import httpx

import svc

from .support import node, replies_by_step, settled, v2_spec

BASE = "/automations/v2/hooked/webhook-triggers"


def signed(secret: str, body: bytes, *, at_ms: int | None = None, **headers: str) -> dict[str, Any]:
    t = at_ms if at_ms is not None else int(time.time() * 1000)
    v1 = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return {"content-type": "application/json", "x-svc-signature": f"t={t},v1={v1}", **headers}


async def make_trigger(client: httpx.AsyncClient) -> tuple[str, str]:
    body = v2_spec([node("a", "worker")])
    assert (
        await client.post("/automations/v2", json={**body, "automation_id": "hooked"})
    ).status_code == 200
    created = await client.post(
        BASE, json={"name": "pushes", "provider": "generic", "providerEventKind": "push"}
    )
    assert created.status_code == 200, created.text
    reply = created.json()
    assert reply["secret_one_time"] is True and reply["new_secret"].startswith("whsec_")
    return reply["trigger"]["trigger_id"], reply["new_secret"]


async def test_triggers_are_managed_and_never_show_their_secret_again(
    client: httpx.AsyncClient,
) -> None:
    trigger_id, secret = await make_trigger(client)
    got = (await client.get(f"{BASE}/{trigger_id}")).json()["trigger"]
    assert got["name"] == "pushes" and got["provider_event_kind"] == "push"
    assert got["callback_path"] == f"/webhooks/automations/{trigger_id}"
    assert got["signature_scheme"] == "svc_hmac_sha256_v1" and got["enabled"] is True
    assert (
        got["secret_status"]["configured"] is True and got["secret_status"]["secret_version"] == 1
    )
    listed = (await client.get(BASE)).json()
    assert listed["count"] == 1 and listed["triggers"][0]["trigger_id"] == trigger_id
    updated = await client.patch(f"{BASE}/{trigger_id}", json={"name": "renamed"})
    assert updated.json()["trigger"]["name"] == "renamed"
    bad = await client.patch(f"{BASE}/{trigger_id}", json={"signature_scheme": "other"})
    assert bad.status_code == 400 and bad.json()["field"] == "signature_scheme"

    rotated = (await client.post(f"{BASE}/{trigger_id}/rotate-secret", json={})).json()
    assert rotated["new_secret"] != secret
    assert rotated["trigger"]["secret_status"]["secret_version"] == 2
    everything = json.dumps([got, listed, updated.json(), rotated["trigger"]])
    assert secret not in everything and rotated["new_secret"] not in everything

    disabled = (await client.post(f"{BASE}/{trigger_id}/disable", json={})).json()
    assert disabled["trigger"]["enabled"] is False
    deleted = (await client.delete(f"{BASE}/{trigger_id}")).json()
    assert deleted["ok"] is True and deleted["deleted"] is True
    gone = await client.get(f"{BASE}/{trigger_id}")
    assert gone.status_code == 404
    assert gone.json()["code"] == "AUTOMATION_V2_WEBHOOK_TRIGGER_NOT_FOUND"


async def test_a_signed_delivery_starts_one_run_and_a_replay_starts_none(
    engine: svc.Engine, client: httpx.AsyncClient, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    trigger_id, secret = await make_trigger(client)
    raw = json.dumps({"ref": "refs/heads/main", "token": "do-not-keep"}).encode()
    headers = signed(secret, raw, **{"x-svc-delivery-id": "d-1"})
    # No engine token: the signature authenticates the sender.
    async with httpx.AsyncClient(base_url=str(client.base_url)) as anonymous:
        first = await anonymous.post(
            f"/webhooks/automations/{trigger_id}", content=raw, headers=headers
        )
        assert first.status_code == 202, first.text
        delivery = first.json()["delivery"]
        assert delivery["status"] == "accepted" and delivery["provider_event_id"] == "d-1"
        run_id = delivery["queued_run_id"]
        run = await settled(engine, run_id)
        assert run.trigger_type == "webhook"
        assert run.context["webhook"]["payload"]["ref"] == "refs/heads/main"
        assert run.context["webhook"]["payload"]["token"] != "do-not-keep"

        again = await anonymous.post(
            f"/webhooks/automations/{trigger_id}", content=raw, headers=headers
        )
        assert again.status_code == 200 and again.json()["status"] == "duplicate"
        assert again.json()["duplicate_of_run_id"] == run_id
    runs = (await client.get("/automations/v2/hooked/runs")).json()
    assert runs["count"] == 1

    deliveries = (await client.get(f"{BASE}/{trigger_id}/deliveries")).json()
    assert [d["status"] for d in deliveries["deliveries"]] == ["duplicate", "accepted"]
    one = await client.get(f"{BASE}/{trigger_id}/deliveries/{delivery['delivery_id']}")
    assert one.json()["delivery"]["queued_run_id"] == run_id
    counts = (await client.get(f"{BASE}/{trigger_id}")).json()["trigger"]["delivery_counts"]
    assert counts["accepted"] == 1 and counts["duplicate"] == 1 and counts["total"] == 2


async def test_bad_signatures_stale_timestamps_and_disabled_triggers_are_refused(
    client: httpx.AsyncClient,
) -> None:
    trigger_id, secret = await make_trigger(client)
    raw = b'{"x": 1}'
    path = f"/webhooks/automations/{trigger_id}"
    cases = [
        ({"content-type": "application/json"}, "signature_missing"),
        (signed("whsec_wrong", raw), "signature_mismatch"),
        (
            signed(secret, raw, at_ms=int(time.time() * 1000) - 10 * 60 * 1000),
            "timestamp_out_of_window",
        ),
    ]
    async with httpx.AsyncClient(base_url=str(client.base_url)) as anonymous:
        for headers, reason in cases:
            refused = await anonymous.post(path, content=raw, headers=headers)
            assert refused.status_code == 401, refused.text
            assert refused.json()["reasonCode"] == reason
        tampered = signed(secret, raw)
        refused = await anonymous.post(path, content=b'{"x": 2}', headers=tampered)
        assert refused.json()["reasonCode"] == "signature_mismatch"
        unknown = await anonymous.post("/webhooks/automations/whk_nope", content=raw)
        assert unknown.status_code == 404

        old_secret = secret
        secret = (await client.post(f"{BASE}/{trigger_id}/rotate-secret", json={})).json()[
            "new_secret"
        ]
        stale = await anonymous.post(path, content=raw, headers=signed(old_secret, raw))
        assert stale.status_code == 401

        await client.post(f"{BASE}/{trigger_id}/disable", json={})
        off = await anonymous.post(path, content=raw, headers=signed(secret, raw))
        assert off.status_code == 409 and off.json()["reasonCode"] == "trigger_disabled"
    deliveries = (await client.get(f"{BASE}/{trigger_id}/deliveries")).json()["deliveries"]
    assert deliveries[0]["status"] == "disabled"
    assert {d["rejection_reason_code"] for d in deliveries[1:]} == {
        "signature_missing",
        "signature_mismatch",
        "timestamp_out_of_window",
    }
    assert (await client.get("/automations/v2/hooked/runs")).json()["count"] == 0
