"""Security routes: admin only, dry-run, no secret in any response; packs, report, cards."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from svc import Settings

from .security_support import ENV, build_realistic
from .support import SECRET

S = "/incident-monitor/security"
TOKEN = "admin-token-0123456789"
ROUTES: list[tuple[str, str, Any]] = [
    ("GET", f"{S}/authority-inventory", None),
    ("GET", f"{S}/posture-checks", None),
    ("POST", f"{S}/assessment-probes", {}),
    ("POST", f"{S}/assessment-report", {"persist_artifact": False}),
    ("POST", f"{S}/deployment-cards", {}),
    ("GET", f"{S}/scenario-packs", None),
    ("POST", f"{S}/scenario-packs", {}),
    ("POST", f"{S}/governance-metrics", {}),
    ("GET", f"{S}/reassessments", None),
    ("POST", f"{S}/reassessments", None),
    ("GET", f"{S}/evidence", None),
]


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings(env=ENV)


async def call(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    body: Any,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    return await client.request(method, path, json=body, headers=headers or {})


async def test_every_security_route_answers_without_a_secret(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await build_realistic(engine, client, tmp_path)
    for method, path, body in ROUTES:
        response = await call(client, method, path, body)
        assert response.status_code == 200, (path, response.text)
        assert SECRET not in response.text, path
    report = (await call(client, "POST", f"{S}/assessment-report", {})).json()
    assert SECRET not in json.dumps(report)
    sections = report["sections"]
    for key in ("detected_findings", "adversarial_scenario_packs", "governance_maturity_metrics"):
        assert key in sections
    assert report["markdown_summary"].startswith("# Incident Monitor Security Gap Assessment")
    pack = report["evidence_pack"]
    assert pack["persisted"] is True
    listed = (await client.get(f"{S}/evidence")).json()["artifacts"]
    assert [a["context_run_id"] for a in listed] == [pack["context_run_id"]]
    back = (await client.get(f"{S}/evidence/{pack['context_run_id']}")).json()["artifact"]
    assert back["content"]["counts"] == report["counts"]
    assert back["artifact_type"] == "incident_monitor_assessment_report"
    assert (await client.get(f"{S}/evidence/nope")).status_code == 404
    types = {e.type for e in await engine.incidents.ledger.entries(domain="incident_monitor")}
    assert "incident_monitor.assessment_report.generated" in types
    assert "incident_monitor.deployment_cards.generated" in types
    assert "incident_monitor.reassessment.completed" in types


async def test_scoped_key_and_missing_token_are_refused_on_every_route(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(env=ENV, api_token=TOKEN)
    async with svc.open_engine(settings, serve_http=True) as engine:
        admin = {"X-Agent-Token": TOKEN}
        async with httpx.AsyncClient(base_url=engine.url or "", timeout=30) as client:
            await client.patch(
                "/config/incident-monitor",
                headers=admin,
                json={
                    "incident_monitor": {
                        "enabled": True,
                        "monitored_projects": [{"project_id": "billing", "name": "Billing"}],
                    }
                },
            )
            created = await client.post(
                "/incident-monitor/intake/keys",
                headers=admin,
                json={"project_id": "billing", "name": "ci"},
            )
            raw = created.json()["raw_key"]
            for method, path, body in ROUTES:
                missing = await call(client, method, path, body)
                assert missing.status_code == 401, path
                assert missing.json()["code"] == "AUTH_REQUIRED"
                wrong = await call(client, method, path, body, {"X-Agent-Token": "nope"})
                assert wrong.status_code == 401, path
                scoped = await call(
                    client, method, path, body, {"x-svc-incident-monitor-intake-key": raw}
                )
                assert scoped.status_code == 403, path
                both = await call(
                    client, method, path, body, {**admin, "x-svc-incident-monitor-intake-key": raw}
                )
                assert both.status_code == 403, path
                agent = await call(
                    client, method, path, body, {**admin, "x-svc-request-source": "agent"}
                )
                assert agent.status_code == 403, path
                assert agent.json()["code"].endswith("_ADMIN_REQUIRED")
                ok = await call(client, method, path, body, admin)
                assert ok.status_code == 200, (path, ok.text)


async def test_builtin_pack_passes_on_a_correct_config(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await build_realistic(engine, client, tmp_path)
    described = (await client.get(f"{S}/scenario-packs")).json()
    [pack] = described["packs"]
    assert len(pack["scenarios"]) == 8
    body = (await client.post(f"{S}/scenario-packs", json={})).json()["pack"]
    assert body["mutates_external_systems"] is False
    assert body["counts"] == {"total": 8, "passed": 8, "failed": 0, "blocked": 0}, [
        r["observed_behavior"] for r in body["results"]
    ]
    assert all(r["finding_id"] is None for r in body["results"])
    subset = (
        await client.post(
            f"{S}/scenario-packs", json={"scenario_ids": ["prompt_injection_requires_approval"]}
        )
    ).json()["pack"]
    assert subset["counts"]["total"] == 1


async def test_builtin_pack_fails_with_findings_on_a_misconfigured_config(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await build_realistic(engine, client, tmp_path)
    loose = [
        {
            "route_id": "all",
            "name": "All",
            "destination_ids": ["telemetry"],
            "approval_policy": "never",
        }
    ]
    config = (await client.get("/config/incident-monitor")).json()["incident_monitor"]
    config["routes"] = loose
    response = await client.patch("/config/incident-monitor", json={"incident_monitor": config})
    assert response.status_code == 200, response.text
    body = (await client.post(f"{S}/scenario-packs", json={})).json()["pack"]
    failed = [r for r in body["results"] if r["status"] == "fail"]
    assert body["counts"]["failed"] == len(failed) == 5
    assert all(r["finding_id"].startswith("asp_") for r in failed)
    report = await client.post(f"{S}/assessment-report", json={"persist_artifact": False})
    assert report.json()["counts"]["failed_adversarial_scenarios"] == 5
    assert report.json()["evidence_pack"] == {
        "persisted": False,
        "reason": "persist_artifact was false",
    }


async def test_custom_pack_is_validated_and_run(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await build_realistic(engine, client, tmp_path)
    bad = {
        "pack": {
            "pack_id": "mine",
            "scenarios": [
                {"scenario_id": "a", "category": "x", "input": {}, "expect": {"blocked": "yes"}}
            ],
        }
    }
    response = await client.post(f"{S}/scenario-packs", json=bad)
    assert response.status_code == 400
    assert response.json()["field"] == "pack.scenarios[0].expect.blocked"
    good = {
        "pack": {
            "pack_id": "mine",
            "scenarios": [
                {
                    "scenario_id": "a",
                    "category": "x",
                    "input": {"requested_destination_ids": ["ghost"]},
                    "expect": {"blocked": True, "reason_contains": "not configured"},
                }
            ],
        }
    }
    body = (await client.post(f"{S}/scenario-packs", json=good)).json()["pack"]
    assert body["counts"]["passed"] == 1


async def test_posture_checks_filter_and_fingerprints_are_stable(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await build_realistic(engine, client, tmp_path)
    first = (await client.get(f"{S}/posture-checks")).json()["findings"]
    second = (await client.get(f"{S}/posture-checks")).json()["findings"]
    assert [f["fingerprint"] for f in first] == [f["fingerprint"] for f in second]
    assert first and all(f["fingerprint"].startswith("sha256:") for f in first)
    # The connectors are disabled, so their missing allowlists are no gap yet.
    assert "mcp_server_without_tool_allowlist" not in {f["rule_id"] for f in first}
    high = (await client.get(f"{S}/posture-checks?min_severity=high")).json()["findings"]
    assert all(f["severity"] in ("high", "critical") for f in high)
    bad = await client.get(f"{S}/posture-checks?rules=nope")
    assert bad.status_code == 400 and bad.json()["field"] == "rules"


async def test_deployment_cards_flag_missing_fields(
    engine: svc.Engine, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await build_realistic(engine, client, tmp_path)
    full = {
        "intended_purpose": "watch",
        "business_owner": "ops",
        "accountable_team": "sre",
        "autonomy_level": "supervised",
        "data_classification": "internal",
        "approval_protocol": "two-person",
        "escalation_protocol": "pager",
        "review_cadence_days": 30,
    }
    body = (
        await client.post(
            f"{S}/deployment-cards",
            json={"metadata": {"svc:self_monitoring:incident_monitor": full}},
        )
    ).json()
    kinds = body["counts"]["by_card_kind"]
    assert kinds["svc_self_monitoring"] == 1 and kinds["automation"] == 2
    assert kinds["monitored_source"] == 2
    missing = {f["finding_id"].split(":")[1] for f in body["findings"]}
    assert "self_monitoring" not in missing
    assert body["counts"]["findings"] == 8 * (body["counts"]["cards"] - 1)
