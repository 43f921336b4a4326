"""Governance maturity metrics and behavioral drift (reference §1.21), dry-run.

:func:`compute` is pure over plain rows (so tests check it against hand-computed
numbers); :func:`governance_metrics` loads the rows: up to 200 newest incidents and
posts, 500 policy decisions, the monitor's audit rows, and readiness.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .errors import bad_request
from .routing import is_high_risk

if TYPE_CHECKING:
    from .service import IncidentService

WEEK_MS = 604_800_000
DEFAULT_THRESHOLDS: dict[str, float] = {
    "governance_confidence_min": 0.9,
    "authority_boundary_compliance_min": 0.95,
    "escalation_utilization_min": 0.9,
    "route_readiness_min": 0.9,
    "receipt_completeness_min": 0.95,
    "drift_rate_delta_max": 0.25,
}
METRIC_NAMES = {
    "governance_confidence": "Governance confidence",
    "authority_boundary_compliance": "Authority-boundary compliance",
    "escalation_pathway_utilization": "Escalation-pathway utilization",
    "route_readiness_compliance": "Route-readiness compliance",
    "receipt_completeness": "Receipt completeness",
    "recurring_incident_rate": "Recurring-incident rate",
}
THRESHOLD_OF = {
    "governance_confidence": "governance_confidence_min",
    "authority_boundary_compliance": "authority_boundary_compliance_min",
    "escalation_pathway_utilization": "escalation_utilization_min",
    "route_readiness_compliance": "route_readiness_min",
    "receipt_completeness": "receipt_completeness_min",
}


@attrs.frozen
class Inputs:
    incidents: Sequence[Mapping[str, Any]]
    """Incident documents (``incident_id``, ``updated_at_ms``, ``risk_level``, ...)."""
    posts: Sequence[Mapping[str, Any]]
    decisions: Sequence[Mapping[str, Any]]
    """``effect``, ``approval_id``, ``created_at_ms``."""
    readiness: Sequence[bool]
    """One per enabled destination and enabled source: ready or not."""
    audited_incident_ids: frozenset[str] = frozenset()
    """Incidents named by a ``incident_monitor.publish.*`` audit row."""


def parse_thresholds(raw: Any) -> dict[str, float]:
    thresholds = dict(DEFAULT_THRESHOLDS)
    if raw is None:
        return thresholds
    if not isinstance(raw, Mapping):
        raise bad_request(
            "GOVERNANCE_METRICS_INVALID", "thresholds must be an object", field="thresholds"
        )
    for key, value in raw.items():
        field = f"thresholds.{key}"
        if key not in DEFAULT_THRESHOLDS:
            raise bad_request(
                "GOVERNANCE_METRICS_INVALID", f"unknown threshold `{key}`", field=field
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise bad_request(
                "GOVERNANCE_METRICS_INVALID", f"{field} must be a rate between 0 and 1", field=field
            )
        thresholds[key] = float(value)
    return thresholds


def _metric(
    metric_id: str,
    numerator: int,
    denominator: int,
    threshold: float | None,
    missing: str,
    refs: Iterable[str] = (),
) -> dict[str, Any]:
    rate = numerator / denominator if denominator else None
    return {
        "metric_id": metric_id,
        "name": METRIC_NAMES[metric_id],
        "numerator": numerator,
        "denominator": denominator,
        "rate": rate,
        "threshold": threshold,
        "breached": rate is not None and threshold is not None and rate < threshold,
        "evaluable": denominator > 0,
        "missing_evidence_reasons": [] if denominator else [missing],
        "evidence_refs": sorted(refs)[:20],
    }


def _in(ms: Any, lo: int, hi: int) -> bool:
    return isinstance(ms, int) and lo < ms <= hi


def _incident_time(i: Mapping[str, Any]) -> Any:
    return i.get("updated_at_ms") or i.get("created_at_ms")


def _post_time(p: Mapping[str, Any]) -> Any:
    return p.get("updated_at_ms") or p.get("created_at_ms")


def _rates(inputs: Inputs, lo: int, hi: int) -> dict[str, tuple[int, int]]:
    posts = [p for p in inputs.posts if _in(_post_time(p), lo, hi) and p.get("status") != "pending"]
    decisions = [d for d in inputs.decisions if _in(d.get("created_at_ms"), lo, hi)]
    bounded = [d for d in decisions if d.get("effect") in ("allow", "deny")]
    incidents = [i for i in inputs.incidents if _in(_incident_time(i), lo, hi)]
    rates = {
        "publish_failure_rate": (sum(p.get("status") == "failed" for p in posts), len(posts)),
        "denied_action_rate": (sum(d.get("effect") == "deny" for d in bounded), len(bounded)),
        "escalation_rate": (
            sum(d.get("effect") == "approval_required" for d in decisions),
            len(decisions),
        ),
    }
    for incident in incidents:
        category = str(incident.get("risk_category") or "uncategorized")
        key = f"incident_category_share:{category}"
        rates[key] = (rates.get(key, (0, 0))[0] + 1, len(incidents))
    return rates


def compute(
    inputs: Inputs, *, to_ms: int, window_ms: int, thresholds: Mapping[str, float]
) -> dict[str, Any]:
    lo, hi = to_ms - window_ms, to_ms
    incidents = [i for i in inputs.incidents if _in(_incident_time(i), lo, hi)]
    high = [i for i in incidents if is_high_risk(i.get("risk_level"))]
    posted_incidents = {str(p.get("incident_id")) for p in inputs.posts if p.get("incident_id")}
    posted_drafts = {str(p.get("draft_id")) for p in inputs.posts if p.get("draft_id")}

    def audited(i: Mapping[str, Any]) -> bool:
        return (
            str(i.get("incident_id")) in posted_incidents
            or str(i.get("draft_id")) in posted_drafts
            or str(i.get("incident_id")) in inputs.audited_incident_ids
        )

    confident = [i for i in high if i.get("evidence_refs") and audited(i)]
    decisions = [d for d in inputs.decisions if _in(d.get("created_at_ms"), lo, hi)]
    bounded = [d for d in decisions if d.get("effect") in ("allow", "deny")]
    escalations = [d for d in decisions if d.get("effect") == "approval_required"]
    posts = [p for p in inputs.posts if _in(_post_time(p), lo, hi) and p.get("status") != "pending"]
    complete = [
        p
        for p in posts
        if p.get("status") == "posted" and (p.get("external_id") or p.get("external_url"))
    ]
    t = thresholds
    metrics = [
        _metric(
            "governance_confidence",
            len(confident),
            len(high),
            t["governance_confidence_min"],
            "no high-risk incidents in the window",
            (str(i.get("incident_id")) for i in high),
        ),
        _metric(
            "authority_boundary_compliance",
            sum(d.get("effect") == "allow" for d in bounded),
            len(bounded),
            t["authority_boundary_compliance_min"],
            "no allow or deny policy decisions in the window",
        ),
        _metric(
            "escalation_pathway_utilization",
            sum(bool(d.get("approval_id")) for d in escalations),
            len(escalations),
            t["escalation_utilization_min"],
            "no approval_required policy decisions in the window",
        ),
        _metric(
            "route_readiness_compliance",
            sum(inputs.readiness),
            len(inputs.readiness),
            t["route_readiness_min"],
            "no enabled destinations or sources",
        ),
        _metric(
            "receipt_completeness",
            len(complete),
            len(posts),
            t["receipt_completeness_min"],
            "no settled delivery receipts in the window",
            (str(p.get("post_id")) for p in posts),
        ),
        _metric(
            "recurring_incident_rate",
            sum(int(i.get("occurrence_count") or 1) > 1 for i in incidents),
            len(incidents),
            None,
            "no incidents in the window",
        ),
    ]
    current, baseline = _rates(inputs, lo, hi), _rates(inputs, lo - window_ms, lo)
    delta_max = t["drift_rate_delta_max"]
    drift = []
    fixed = ["publish_failure_rate", "denied_action_rate", "escalation_rate"]
    categories = sorted(k for k in {*current, *baseline} if k not in fixed)
    for signal in [*fixed, *categories]:
        cur, base = current.get(signal, (0, 0)), baseline.get(signal, (0, 0))
        c_rate = cur[0] / cur[1] if cur[1] else None
        b_rate = base[0] / base[1] if base[1] else None
        evaluable = c_rate is not None and b_rate is not None
        delta = (c_rate - b_rate) if c_rate is not None and b_rate is not None else None
        drift.append(
            {
                "signal": signal,
                "current_rate": c_rate,
                "baseline_rate": b_rate,
                "delta": delta,
                "delta_max": delta_max,
                "drift_flagged": delta is not None and abs(delta) > delta_max,
                "evaluable": evaluable,
            }
        )
    findings: list[dict[str, Any]] = []
    for m in metrics:
        if m["breached"]:
            findings.append(
                {
                    "kind": "metric_threshold_breach",
                    "metric_id": m["metric_id"],
                    "rate": m["rate"],
                    "threshold": m["threshold"],
                    "severity": "high",
                    "detail": f"{m['name']} is {m['rate']:.3f}, below {m['threshold']:.3f}",
                    "dry_run": True,
                    "incident_draft_suggestion": {
                        "source": "governance_maturity_metric",
                        "event_type": "security.governance_metric.breached",
                        "risk_level": "high",
                        "risk_category": "governance_gap",
                        "route_tags": ["governance_maturity", m["metric_id"]],
                    },
                }
            )
    for d in drift:
        if d["drift_flagged"]:
            findings.append(
                {
                    "kind": "behavioral_drift",
                    "signal": d["signal"],
                    "delta": d["delta"],
                    "delta_max": d["delta_max"],
                    "severity": "medium",
                    "detail": f"{d['signal']} moved by {d['delta']:+.3f} (max {delta_max:.3f})",
                    "dry_run": True,
                }
            )
    return {
        "schema_version": 1,
        "mode": "dry_run",
        "mutates_external_systems": False,
        "redacted": True,
        "window": {
            "current": {"from_ms": lo, "to_ms": hi, "label": "current"},
            "baseline": {"from_ms": lo - window_ms, "to_ms": lo, "label": "baseline"},
            "window_ms": window_ms,
        },
        "thresholds": dict(thresholds),
        "metrics": metrics,
        "behavioral_drift": drift,
        "threshold_findings": findings,
        "counts": {
            "metrics": len(metrics),
            "breached_metrics": sum(m["breached"] for m in metrics),
            "drift_flags": sum(d["drift_flagged"] for d in drift),
            "findings": len(findings),
        },
    }


async def load_inputs(service: IncidentService) -> Inputs:
    from .source_readiness import source_readiness

    incidents = [i.doc for i in await service.drafts.incidents(limit=200)]
    posts = [p.doc for p in await service.posts.page(limit=200)]
    decisions = [d.to_wire() for d in await service.decisions.window(limit=500)]
    entries = await service.ledger.entries(domain="incident_monitor", limit=500)
    audited = frozenset(
        str(e.payload.get("incident_id"))
        for e in entries
        if e.type.startswith("incident_monitor.publish.") and e.payload.get("incident_id")
    )
    readiness = [r.ready for r in service.readiness() if r.enabled]
    states = {(s.project_id, s.source_id): s for s in await service.log_states.all_states()}
    readiness += [
        bool(row["ready"])
        for row in source_readiness(service.config, states, service.now_ms())
        if row.get("enabled", True)
    ]
    return Inputs(incidents, posts, decisions, readiness, audited)


def _int(body: Mapping[str, Any], name: str, default: int, minimum: int) -> int:
    value = body.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise bad_request(
            "GOVERNANCE_METRICS_INVALID", f"{name} must be an integer >= {minimum}", field=name
        )
    return value


async def governance_metrics(service: IncidentService, body: Any) -> dict[str, Any]:
    body = body if isinstance(body, Mapping) else {}
    to_ms = _int(body, "to_ms", service.now_ms(), 0)
    window_ms = _int(body, "window_ms", WEEK_MS, 1)
    thresholds = parse_thresholds(body.get("thresholds"))
    result = compute(
        await load_inputs(service), to_ms=to_ms, window_ms=window_ms, thresholds=thresholds
    )
    return result
