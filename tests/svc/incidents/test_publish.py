"""Publishing: signed webhooks, the guard, readiness blocks, local destinations, receipts."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from svc import Settings
from svc.events import EventFilter
from tests.fakes.webhook_receiver import open_webhook_receiver

from .support import configure, report

HOOK_SECRET = "whsec-test-0123456789abcdef"


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings(env={"SVC_WEBHOOK_SECRET": HOOK_SECRET})


def webhook(url: str, **config: Any) -> dict[str, Any]:
    return {
        "destination_id": "ops-hook",
        "name": "Ops webhook",
        "kind": "webhook",
        "webhook_url": url,
        "webhook_secret_ref": "env:SVC_WEBHOOK_SECRET",
        "config": config,
    }


DEV = {"allow_private_networks": True, "allow_insecure_http": True}


async def draft_of(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    response = await client.post("/incident-monitor/report", json={"report": report(**extra)})
    assert response.status_code == 200, response.text
    return response.json()["draft"]  # type: ignore[no-any-return]


async def test_webhook_delivery_is_signed_and_leaves_a_receipt(
    engine: svc.Engine, client: httpx.AsyncClient
) -> None:
    async with open_webhook_receiver(HOOK_SECRET, statuses=[503, 200]) as receiver:
        await configure(
            client,
            destinations=[webhook(receiver.url, **DEV)],
            default_destination_ids=["ops-hook"],
        )
        draft = await draft_of(client)
        response = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/publish")
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["action"] == "post_webhook"
        assert body["draft"]["status"] == "webhook_posted"
        assert [d.verified for d in receiver.deliveries] == [True, True]
        first, second = receiver.deliveries
        # the retry reuses the delivery id and idempotency key
        assert first.headers["x-svc-delivery-id"] == second.headers["x-svc-delivery-id"]
        assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
        assert second.headers["x-svc-signature-scheme"] == "svc_hmac_sha256_v1"
        assert second.headers["x-svc-event"] == "incident_monitor.incident"
        assert second.payload["draft"]["draft_id"] == draft["draft_id"]
        post = body["post"]
        assert post["status"] == "posted" and post["attempt_count"] == 2
        assert post["status_code"] == 200
        assert post["delivery_id"] == first.headers["x-svc-delivery-id"]
        assert post["route_match_reason"] == "default_destination"
        assert len(post["evidence_digest"]) == 64
        assert [a["status_code"] for a in post["receipt"]["attempts"]] == [503, 200]
        posts = (await client.get("/incident-monitor/posts?destination_id=ops-hook")).json()
        assert posts["count"] == 1
        # the same evidence again: no second delivery
        again = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/publish")
        assert again.json()["outcomes"][0]["action"] == "skip_duplicate"
        assert len(receiver.deliveries) == 2
        texts = [json.dumps(e.to_wire()) for e in await engine.incidents.ledger.entries()]
        texts += [response.text, (await client.get("/incident-monitor/posts")).text]
        assert all(HOOK_SECRET not in t for t in texts)
        types = [e.type for e in await engine.incidents.ledger.entries()]
        assert "incident_monitor.publish.attempted" in types
        assert "incident_monitor.publish.completed" in types
        # attempted and completed were appended in one batch, the chain head read once:
        # each row still links to the one before it
        rows = sorted(await engine.incidents.ledger.entries(), key=lambda e: e.seq or 0)
        assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(rows))
        assert await engine.incidents.ledger.verify()


async def test_private_address_and_redirect_to_loopback_are_refused_without_opt_ins(
    engine: svc.Engine, client: httpx.AsyncClient
) -> None:
    async with open_webhook_receiver(HOOK_SECRET) as receiver:
        await configure(
            client,
            destinations=[webhook(receiver.url, allow_insecure_http=True)],
            default_destination_ids=["ops-hook"],
        )
        draft = await draft_of(client)
        refused = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/publish")
        assert refused.status_code == 400
        assert refused.json()["code"] == "INCIDENT_MONITOR_DRAFT_PUBLISH_FAILED"
        assert "localhost/private network" in refused.text
        assert receiver.deliveries == []
    # a public-looking URL whose answer redirects to loopback: the redirect is refused
    async with (
        open_webhook_receiver(HOOK_SECRET) as target,
        open_webhook_receiver(HOOK_SECRET, redirect_to="http://127.0.0.1:1/steal") as bouncer,
    ):
        await configure(
            client,
            destinations=[webhook(bouncer.url, **DEV)],
            default_destination_ids=["ops-hook"],
        )
        draft = await draft_of(client, title="Redirected")
        response = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/publish")
        assert response.status_code == 400
        outcome = response.json()["outcomes"][0]
        assert "refused" in outcome["error"]
        assert target.deliveries == []
        posts = response.json()["posts"]
        assert posts[0]["status"] == "failed"


async def test_unready_destination_is_blocked_with_the_audit_event_and_no_receipt(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    telemetry = tmp_path / "telemetry.jsonl"
    await configure(
        client,
        destinations=[
            {**webhook("https://hooks.example.net/x"), "webhook_secret_ref": "env:MISSING_VAR"},
            {
                "destination_id": "tel",
                "name": "Telemetry",
                "kind": "telemetry",
                "telemetry_path": str(telemetry),
            },
            {"destination_id": "mem", "name": "Memory", "kind": "internal_memory"},
        ],
        default_destination_ids=["ops-hook", "tel", "mem"],
    )
    draft = await draft_of(client)
    response = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/publish")
    assert response.status_code == 200, response.text
    outcomes = {o["destination_id"]: o for o in response.json()["outcomes"]}
    assert outcomes["ops-hook"]["action"] == "destination_not_ready"
    assert "Webhook secret reference is unavailable" in outcomes["ops-hook"]["error"]
    assert outcomes["tel"]["action"] == "record_telemetry"
    assert outcomes["mem"]["action"] == "store_memory_summary"
    posts = (await client.get("/incident-monitor/posts")).json()["posts"]
    assert sorted(p["destination_id"] for p in posts) == ["mem", "tel"]  # no receipt for the hook
    entries = await engine.incidents.ledger.entries(type="destination_not_ready")
    assert len(entries) == 1 and entries[0].payload["destination_id"] == "ops-hook"
    failed = await engine.incidents.ledger.entries(type="incident_monitor.publish.failed")
    assert failed[0].payload["action"] == "destination_not_ready"
    events = await engine.events.replay(EventFilter(topic="audit"), after_seq=0)
    assert "destination_not_ready" in [e.type for e in events]
    line = json.loads(telemetry.read_text().splitlines()[0])
    assert line["fingerprint"] == draft["fingerprint"] and line["record_id"].startswith("svctel_")


async def test_approval_required_draft_waits_then_publishes_on_approval(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await configure(
        client,
        destinations=[
            {
                "destination_id": "tel",
                "name": "T",
                "kind": "telemetry",
                "telemetry_path": str(tmp_path / "t.jsonl"),
            }
        ],
        routes=[
            {
                "route_id": "high",
                "name": "High",
                "match_risk_levels": ["high"],
                "approval_policy": "always",
            }
        ],
        default_destination_ids=["tel"],
    )
    draft = await draft_of(client, risk_level="high")
    assert draft["status"] == "approval_required"
    held = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/publish")
    assert held.json()["action"] == "approval_required"
    preview = await client.post(
        "/incident-monitor/route-preview", json={"draft_id": draft["draft_id"]}
    )
    assert preview.json()["matches"][0]["reason"] == "matched_risk_level"
    assert preview.json()["approval_required"] is True
    approved = await client.post(
        f"/incident-monitor/drafts/{draft['draft_id']}/approve", json={"reason": "ok token=zzz"}
    )
    assert approved.json()["action"] == "record_telemetry"
    assert "token=[redacted]" in approved.json()["draft"]["detail"]
    again = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/approve")
    assert again.status_code == 409
    assert again.json()["code"] == "INCIDENT_MONITOR_DRAFT_NOT_PENDING_APPROVAL"


async def test_a_webhook_destination_keeps_one_pinned_connection(
    engine: svc.Engine, client: httpx.AsyncClient
) -> None:
    async with open_webhook_receiver(HOOK_SECRET) as receiver:
        await configure(
            client,
            destinations=[webhook(receiver.url, **DEV)],
            default_destination_ids=["ops-hook"],
        )
        hooks = engine.incidents.webhook_clients
        for i in range(3):
            draft = await draft_of(client, title=f"Failure {i}")
            published = await client.post(f"/incident-monitor/drafts/{draft['draft_id']}/publish")
            assert published.status_code == 200, published.text
        assert [d.verified for d in receiver.deliveries] == [True] * 3
        destination = engine.incidents.config.destination("ops-hook")
        assert destination is not None
        kept = hooks.for_destination(destination)
        # one connection, to the checked address, reused by every delivery
        pool = kept.transport._pool  # httpx's pool
        assert len(pool.connections) == 1
        # every audit row of a publish commits with its receipt, the attempt included
        rows = await engine.incidents.ledger.entries(domain="incident_monitor", limit=20)
        types = [r.type for r in rows]
        assert types.count("incident_monitor.publish.attempted") == 3
        assert types.count("incident_monitor.publish.completed") == 3
        # a changed destination gets a new client; the old one is closed at the save
        await configure(
            client,
            destinations=[webhook(receiver.url, timeout_ms=2000, **DEV)],
            default_destination_ids=["ops-hook"],
        )
        assert not pool.connections  # the old transport was closed
