"""Governance metrics: exact on hand-computed data, not evaluable on none, validated."""

from __future__ import annotations

import httpx
import pytest

import svc
from svc.incidents.errors import IncidentError
from svc.incidents.governance_metrics import DEFAULT_THRESHOLDS, Inputs, compute, parse_thresholds

DAY = 86_400_000
TO = 100 * DAY
W = 7 * DAY
NOW, OLD = TO - DAY, TO - W - DAY  # inside the current window, inside the baseline


def metric(result: dict, metric_id: str) -> dict:
    return next(m for m in result["metrics"] if m["metric_id"] == metric_id)


def test_metrics_are_exact_on_hand_computed_data() -> None:
    incidents = [
        # 3 high-risk in window: 2 with evidence and a post (audited), 1 without evidence
        {
            "incident_id": "i1",
            "draft_id": "d1",
            "risk_level": "high",
            "evidence_refs": ["e"],
            "updated_at_ms": NOW,
            "occurrence_count": 3,
            "risk_category": "security",
        },
        {
            "incident_id": "i2",
            "draft_id": "d2",
            "risk_level": "critical",
            "evidence_refs": ["e"],
            "updated_at_ms": NOW,
            "risk_category": "security",
        },
        {"incident_id": "i3", "risk_level": "high", "updated_at_ms": NOW},
        {"incident_id": "i4", "risk_level": "low", "updated_at_ms": NOW, "occurrence_count": 2},
        {"incident_id": "old", "risk_level": "high", "updated_at_ms": OLD},
    ]
    posts = [
        {
            "post_id": "p1",
            "draft_id": "d1",
            "status": "posted",
            "external_id": "x",
            "updated_at_ms": NOW,
        },
        {"post_id": "p2", "draft_id": "d2", "status": "posted", "updated_at_ms": NOW},
        {"post_id": "p3", "status": "failed", "updated_at_ms": NOW},
        {"post_id": "p4", "status": "pending", "updated_at_ms": NOW},
        {"post_id": "p5", "status": "posted", "external_url": "u", "updated_at_ms": OLD},
    ]
    decisions = [
        *({"effect": "allow", "created_at_ms": NOW} for _ in range(9)),
        {"effect": "deny", "created_at_ms": NOW},
        {"effect": "approval_required", "approval_id": "a1", "created_at_ms": NOW},
        {"effect": "approval_required", "created_at_ms": NOW},
        *({"effect": "allow", "created_at_ms": OLD} for _ in range(2)),
        *({"effect": "deny", "created_at_ms": OLD} for _ in range(2)),
    ]
    inputs = Inputs(incidents, posts, decisions, [True, True, True, False])
    result = compute(inputs, to_ms=TO, window_ms=W, thresholds=DEFAULT_THRESHOLDS)
    gc = metric(result, "governance_confidence")
    assert (gc["numerator"], gc["denominator"]) == (2, 3) and gc["breached"]
    ab = metric(result, "authority_boundary_compliance")
    assert (ab["numerator"], ab["denominator"], ab["rate"]) == (9, 10, 0.9)
    assert ab["breached"]  # 0.9 < 0.95
    esc = metric(result, "escalation_pathway_utilization")
    assert (esc["numerator"], esc["denominator"], esc["rate"]) == (1, 2, 0.5)
    rr = metric(result, "route_readiness_compliance")
    assert (rr["numerator"], rr["denominator"], rr["rate"]) == (3, 4, 0.75)
    rc = metric(result, "receipt_completeness")
    assert (rc["numerator"], rc["denominator"]) == (1, 3)
    rec = metric(result, "recurring_incident_rate")
    assert (rec["numerator"], rec["denominator"]) == (2, 4)
    assert rec["threshold"] is None and rec["breached"] is False
    denied = next(d for d in result["behavioral_drift"] if d["signal"] == "denied_action_rate")
    assert denied["current_rate"] == 0.1 and denied["baseline_rate"] == 0.5
    assert denied["drift_flagged"] is True  # |0.1 - 0.5| > 0.25
    kinds = {f["kind"] for f in result["threshold_findings"]}
    assert kinds == {"metric_threshold_breach", "behavioral_drift"}
    assert result["counts"]["metrics"] == 6
    loose = {
        **DEFAULT_THRESHOLDS,
        "authority_boundary_compliance_min": 0.5,
        "drift_rate_delta_max": 0.5,
    }
    relaxed = compute(inputs, to_ms=TO, window_ms=W, thresholds=loose)
    assert not metric(relaxed, "authority_boundary_compliance")["breached"]
    assert not any(
        d["drift_flagged"]
        for d in relaxed["behavioral_drift"]
        if d["signal"] == "denied_action_rate"
    )


def test_no_data_is_not_evaluable() -> None:
    result = compute(Inputs([], [], [], []), to_ms=TO, window_ms=W, thresholds=DEFAULT_THRESHOLDS)
    for m in result["metrics"]:
        assert m["evaluable"] is False and m["rate"] is None and m["breached"] is False
        assert m["missing_evidence_reasons"]
    assert result["threshold_findings"] == []


@pytest.mark.parametrize(
    "raw",
    [
        {"route_readiness_min": 1.5},
        {"route_readiness_min": -0.1},
        {"route_readiness_min": "high"},
        {"nope": 0.5},
    ],
)
def test_thresholds_are_validated(raw: dict) -> None:
    with pytest.raises(IncidentError) as info:
        parse_thresholds(raw)
    assert info.value.extra["field"].startswith("thresholds.")


async def test_route_overrides_thresholds_and_reads_real_decisions(
    engine: svc.Engine, client: httpx.AsyncClient
) -> None:
    record = engine.incidents.decisions.record
    for _ in range(3):
        record(domain="tool_policy", effect="allow", subject="read")
    record(domain="tool_policy", effect="deny", subject="bash")
    url = "/incident-monitor/security/governance-metrics"
    body = (
        await client.post(url, json={"thresholds": {"authority_boundary_compliance_min": 0.7}})
    ).json()
    gm = body["governance_maturity"]
    ab = metric(gm, "authority_boundary_compliance")
    assert (ab["numerator"], ab["denominator"], ab["threshold"]) == (3, 4, 0.7)
    assert not ab["breached"]
    assert gm["mutates_external_systems"] is False
    bad = await client.post(url, json={"thresholds": {"route_readiness_min": 2}})
    assert bad.status_code == 400
    assert bad.json()["field"] == "thresholds.route_readiness_min"
