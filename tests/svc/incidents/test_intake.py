"""Config, admin reports, intake keys, fingerprints and redaction over loopback HTTP."""

from __future__ import annotations

import json

import httpx
import pytest

import svc
from svc.events import EventFilter

from .support import SECRET, configure, intake_key, project, report


async def test_config_is_replaced_whole_with_defaults_and_validated(
    client: httpx.AsyncClient,
) -> None:
    saved = await configure(client, routes=[{"route_id": "r", "name": "R", "priority": 2}])
    assert saved["routes"][0]["approval_policy"] == "inherit"
    assert saved["safety_defaults"]["redact_secrets"] is True
    assert saved["updated_at_ms"] > 0
    again = await configure(client)
    assert again["routes"] == []  # omitted: the default, not the old value
    missing = await client.patch("/config/incident-monitor", json={})
    assert missing.json()["code"] == "INCIDENT_MONITOR_CONFIG_REQUIRED"
    for bad, field in [
        ({"repo": "nope"}, "repo"),
        ({"mcp_server": "ghost"}, "mcp_server"),
        ({"safety_defaults": {"redaction_profile": "label"}}, "safety_defaults.redaction_profile"),
        (
            {"destinations": [{"destination_id": "x", "name": "X", "kind": "pager"}]},
            "destinations[0].kind",
        ),
        (
            {"monitored_projects": [{"project_id": "a b", "name": "A"}]},
            "monitored_projects[0].project_id",
        ),
        ({"enabled": "yes"}, "enabled"),
    ]:
        response = await client.patch("/config/incident-monitor", json={"incident_monitor": bad})
        assert response.status_code == 400, bad
        assert response.json()["code"] == "INCIDENT_MONITOR_CONFIG_INVALID"
        assert response.json()["field"] == field


async def test_report_must_be_wrapped(client: httpx.AsyncClient) -> None:
    await configure(client)
    response = await client.post("/incident-monitor/report", json=report())
    assert response.status_code == 400
    assert response.json()["code"] == "INCIDENT_MONITOR_REPORT_REQUIRED"


async def test_same_failure_twice_gives_one_draft_with_two_occurrences(
    client: httpx.AsyncClient,
) -> None:
    await configure(client)
    first = (await client.post("/incident-monitor/report", json={"report": report()})).json()
    second = (await client.post("/incident-monitor/report", json={"report": report()})).json()
    assert first["draft"]["draft_id"] == second["draft"]["draft_id"]
    assert second["draft"]["occurrence_count"] == 2
    assert second["draft"]["first_seen_at_ms"] == first["draft"]["first_seen_at_ms"]
    assert second["deduplicated"] is True
    other = (
        await client.post("/incident-monitor/report", json={"report": report("Other failure")})
    ).json()
    assert other["draft"]["draft_id"] != first["draft"]["draft_id"]
    drafts = (await client.get("/incident-monitor/drafts")).json()
    assert drafts["count"] == 2
    # the fingerprint is stable: sha256-based, the same on every build
    assert len(first["draft"]["fingerprint"]) == 16


async def test_admin_report_cannot_forge_a_binding(client: httpx.AsyncClient) -> None:
    await configure(client, monitored_projects=[project()])
    forged = report(project_id="billing", tenant_id="other", route_tags=["x"])
    draft = (await client.post("/incident-monitor/report", json={"report": forged})).json()
    assert "project_id" not in draft["draft"] and draft["draft"]["route_tags"] == []


async def test_intake_key_reports_without_the_engine_token_and_nowhere_else(
    make_settings: object,
) -> None:
    settings = make_settings(token="engine-token-0001")  # type: ignore[operator]
    async with svc.open_engine(settings, serve_http=True) as engine:
        admin = httpx.AsyncClient(
            base_url=engine.url or "", headers={"x-svc-token": "engine-token-0001"}
        )
        anonymous = httpx.AsyncClient(base_url=engine.url or "")
        async with admin, anonymous:
            await configure(admin, monitored_projects=[project()])
            raw = await intake_key(admin)
            assert raw.startswith("tim_intake_") and len(raw) == len("tim_intake_") + 64
            keys = (await admin.get("/incident-monitor/intake/keys")).json()["keys"]
            assert keys[0]["key_hash"] == "[redacted]"
            body = {"project_id": "billing", "report": report()}
            headers = {"x-svc-incident-monitor-intake-key": raw}
            ok = await anonymous.post("/incident-monitor/intake/report", json=body, headers=headers)
            assert ok.status_code == 200, ok.text
            assert ok.json()["incident"]["status"] == "draft_created"
            assert ok.json()["draft"]["project_id"] == "billing"
            bearer = {"authorization": f"Bearer {raw}"}
            assert (
                await anonymous.post("/incident-monitor/intake/report", json=body, headers=bearer)
            ).status_code == 200
            wrong = await anonymous.post(
                "/incident-monitor/intake/report",
                json=body,
                headers={"x-svc-incident-monitor-intake-key": "tim_intake_" + "0" * 64},
            )
            assert wrong.status_code == 401
            assert wrong.json()["code"] == "INCIDENT_MONITOR_INTAKE_KEY_INVALID"
            other = {"project_id": "other", "report": report()}
            assert (
                await anonymous.post("/incident-monitor/intake/report", json=other, headers=headers)
            ).status_code == 401
            for method, path in [
                ("GET", "/config/incident-monitor"),
                ("PATCH", "/config/incident-monitor"),
                ("POST", "/incident-monitor/report"),
                ("POST", "/incident-monitor/route-preview"),
                ("GET", "/incident-monitor/intake/keys"),
                ("POST", "/incident-monitor/intake/keys"),
                ("POST", f"/incident-monitor/drafts/{ok.json()['draft']['draft_id']}/publish"),
                ("GET", "/incident-monitor/drafts"),
                ("GET", "/global/config"),
            ]:
                for h in (headers, bearer):
                    refused = await anonymous.request(method, path, json={}, headers=h)
                    assert refused.status_code in (401, 403), (method, path)
                # even with the engine token beside it, an intake key is refused off its route
                both = await admin.request(method, path, json={}, headers=headers)
                assert both.status_code == 403, (method, path)
            keys = (await admin.get("/incident-monitor/intake/keys")).json()["keys"]
            assert keys[0]["last_used_at_ms"] is not None
            key_id = keys[0]["key_id"]
            assert (await admin.post(f"/incident-monitor/intake/keys/{key_id}/disable")).json()[
                "key"
            ]["enabled"] is False
            assert (
                await anonymous.post("/incident-monitor/intake/report", json=body, headers=headers)
            ).status_code == 401


@pytest.mark.parametrize("profile", ["default", "strict", "off"])
async def test_planted_secrets_never_reach_drafts_events_or_audit(
    engine: svc.Engine, client: httpx.AsyncClient, profile: str
) -> None:
    from svc.logs import register_secret

    register_secret(SECRET)
    await configure(
        client,
        monitored_projects=[project(redaction_profile=profile)],
        safety_defaults={"redaction_profile": profile},
    )
    raw = await intake_key(client)
    planted = report(
        title=f"Login failed token={SECRET}",
        detail=f"Authorization: Bearer {SECRET}\npassword: {SECRET}",
        excerpt=[f"api_key={SECRET}", f"header x-svc-incident-monitor-intake-key: {raw}"],
        actor=f"secret={SECRET}",
    )
    admin = await client.post("/incident-monitor/report", json={"report": planted})
    intake = await client.post(
        "/incident-monitor/intake/report",
        json={"project_id": "billing", "report": planted},
        headers={"x-svc-incident-monitor-intake-key": raw},
    )
    texts = [admin.text, intake.text]
    texts.append((await client.get("/incident-monitor/drafts")).text)
    texts.append((await client.get("/incident-monitor/incidents")).text)
    texts.append((await client.get("/incident-monitor/status")).text)
    events = await engine.events.replay(EventFilter(), after_seq=0, limit=10_000)
    texts.extend(json.dumps(e.properties) for e in events)
    entries = await engine.incidents.ledger.entries(limit=1000)
    texts.extend(json.dumps(e.to_wire()) for e in entries)
    for text in texts:
        assert SECRET not in text
        assert raw not in text
    assert await engine.incidents.ledger.verify()


async def test_quality_gate_blocks_routine_noise(client: httpx.AsyncClient) -> None:
    await configure(client)
    response = await client.post(
        "/incident-monitor/report", json={"report": report(event="job.heartbeat")}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INCIDENT_MONITOR_REPORT_INVALID"
    assert "not_routine_noise" in response.json()["detail"]
