"""The security gap assessment report (reference §1.26): JSON sections, a Markdown
summary and, by default, a persisted evidence artifact that can be listed and read back."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import bad_request

if TYPE_CHECKING:
    from .service import IncidentService

ARTIFACT_TYPE = "incident_monitor_assessment_report"
ARTIFACT_PATH = "artifacts/incident_monitor.assessment_report.json"
SELF_KINDS = ("svc_runtime", "svc_monitor")
OMITTED = [
    "scoped_intake_key.raw_key",
    "scoped_intake_key.key_hash",
    "authorization",
    "x-agent-token",
    "x-svc-token",
    "destination.webhook_secret_ref_value",
    "protected_audit.payload",
    "destination.receipt.raw_payload",
]


def _opt_int(body: Mapping[str, Any], name: str) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise bad_request(
            "ASSESSMENT_REPORT_INVALID", f"{name} must be a non-negative integer", field=name
        )
    return value


def _flag(body: Mapping[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise bad_request("ASSESSMENT_REPORT_INVALID", f"{name} must be a boolean", field=name)
    return value


def _markdown(
    generated_at_ms: int,
    counts: Mapping[str, Any],
    probes: Mapping[str, Any],
    boundary: Mapping[str, Any],
    mitigations: list[str],
) -> str:
    lines = [
        "# Incident Monitor Security Gap Assessment",
        "",
        f"Generated at (ms): {generated_at_ms}",
        "Tenant: local/local",
        "",
        "## Summary",
        "",
        f"- Findings: {counts['findings']}",
        f"- Probes: {probes.get('pass', 0)} pass, {probes.get('fail', 0)} fail, "
        f"{probes.get('blocked', 0)} blocked",
        f"- Adversarial scenarios failed: {counts['failed_adversarial_scenarios']} of "
        f"{counts['adversarial_scenarios']}",
        f"- Governance metric breaches: {counts['governance_metric_breaches']}",
        f"- Self-observed incidents: {boundary['self_observed_incidents']}; external system "
        f"incidents: {boundary['external_system_incidents']}",
        "",
        "## Self-Monitoring Boundary",
        "",
        "The incident monitor observes its own runtime and the systems it is connected to. "
        "It is not an independent control: export its audit ledger to a system you own.",
        "",
        "## Recommended Mitigations",
        "",
    ]
    lines += [f"- {m}" for m in mitigations[:10]] or ["No immediate mitigations."]
    return "\n".join(lines) + "\n"


async def build_report(
    service: IncidentService, body: Any, *, internal: bool = False
) -> dict[str, Any]:
    """The report; ``internal`` (reassessment) skips the artifact and the audit row."""
    from .governance_metrics import DEFAULT_THRESHOLDS, WEEK_MS, compute, load_inputs
    from .posture import gather, posture_findings, run_probes
    from .scenarios import default_pack, run_pack

    body = body if isinstance(body, Mapping) else {}
    now = service.now_ms()
    from_ms, to_ms = _opt_int(body, "from_ms"), _opt_int(body, "to_ms")
    end = to_ms if to_ms is not None else now
    source_kind = body.get("source_kind")
    if source_kind is not None and not isinstance(source_kind, str):
        raise bad_request(
            "ASSESSMENT_REPORT_INVALID", "source_kind must be a string", field="source_kind"
        )
    include_probes = _flag(body, "include_probe_results", True)
    persist = _flag(body, "persist_artifact", True)
    inv, ctx = await gather(service)
    findings = posture_findings(inv, ctx)
    probes = (
        await run_probes(
            service,
            {
                "probes": body.get("probes"),
                "include_draft_suggestions": body.get("include_draft_suggestions"),
            },
        )
        if include_probes
        else {"selected_probe_ids": [], "counts": {}, "results": []}
    )
    pack = await run_pack(service, default_pack())
    window = end - from_ms if from_ms is not None and end > from_ms else WEEK_MS
    metrics = compute(
        await load_inputs(service), to_ms=end, window_ms=window, thresholds=DEFAULT_THRESHOLDS
    )
    incidents = [
        i.doc
        for i in await service.drafts.incidents(limit=200)
        if (from_ms is None or i.updated_at_ms > from_ms)
        and i.updated_at_ms <= end
        and (source_kind is None or i.doc.get("source_kind") == source_kind)
    ]
    posts = ctx["posts"]
    safety = service.config.safety_defaults
    i = inv["inventory"]
    kinds = Counter(str(x.get("source_kind") or "unknown") for x in incidents)
    self_observed = sum(kinds[k] for k in SELF_KINDS)
    boundary = {
        "self_observed_incidents": self_observed,
        "external_system_incidents": len(incidents) - self_observed,
    }
    mitigations = [f"{f['title']}: {f['recommendation']}" for f in findings]
    mitigations += [
        f"Scenario `{r['scenario_id']}` failed: {r['observed_behavior']}"
        for r in pack["results"]
        if r["status"] == "fail"
    ]
    entries = await service.ledger.entries(domain="incident_monitor", limit=100)
    kind_of = {d["destination_id"]: d["kind"] for d in i["destinations"]}
    sections = {
        "assessment_scope": {
            "time_window": {"from_ms": from_ms, "to_ms": end},
            "source_kind": source_kind,
            "includes_probe_results": include_probes,
            "includes_adversarial_scenarios": True,
            "includes_governance_metrics": True,
            "raw_payloads_included": False,
        },
        "monitored_systems_and_sources": {
            "source_kind_counts": dict(
                Counter(str(s["source_kind"]) for s in i["monitored_sources"])
            ),
            "source_readiness": ctx["source_readiness"][:50],
            "sources": i["monitored_sources"][:50],
        },
        "authority_inventory": {
            "counts": inv["counts"],
            "destinations": i["destinations"][:50],
            "routes": i["routes"][:50],
        },
        "approval_coverage": {
            "approval_rules": len(i["approval_rules"]),
            "approval_required_rules": sum(
                r.get("approval_policy") == "always" for r in i["approval_rules"]
            ),
            "destinations_requiring_approval": [
                d["destination_id"] for d in i["destinations"] if d["require_approval"]
            ],
            "require_approval_for_high_risk": safety.require_approval_for_high_risk,
        },
        "tenant_workspace_context_coverage": {
            "sources": len(i["monitored_sources"]),
            "with_tenant_and_workspace": sum(
                bool(s["tenant_id"] and s["workspace_id"]) for s in i["monitored_sources"]
            ),
        },
        "detected_findings": {
            "counts": {
                "findings": len(findings),
                "by_severity": dict(Counter(f["severity"] for f in findings)),
            },
            "findings": findings,
        },
        "controlled_probe_results": {
            "selected_probe_ids": probes["selected_probe_ids"],
            "counts": probes["counts"],
            "results": probes["results"],
        },
        "adversarial_scenario_packs": pack,
        "governance_maturity_metrics": metrics,
        "incidents_and_evidence_refs": {
            "counts": {"incidents": len(incidents), "by_source_kind": dict(kinds)},
            "incidents": [
                {
                    "incident_id": x.get("incident_id"),
                    "status": x.get("status"),
                    "fingerprint": x.get("fingerprint"),
                    "risk_level": x.get("risk_level"),
                    "source_kind": x.get("source_kind"),
                    "evidence_refs": x.get("evidence_refs") or [],
                }
                for x in incidents
            ],
        },
        "destination_receipts": {
            "counts": {
                "receipts": len(posts),
                "by_destination_kind": dict(
                    Counter(kind_of.get(str(p.get("destination_id")), "unknown") for p in posts)
                ),
                "by_status": dict(Counter(str(p.get("status")) for p in posts)),
            },
            "receipts": [
                {
                    "post_id": p.get("post_id"),
                    "destination_id": p.get("destination_id"),
                    "status": p.get("status"),
                    "external_id_present": bool(p.get("external_id")),
                    "updated_at_ms": p.get("updated_at_ms"),
                }
                for p in posts
            ],
        },
        "recommended_mitigations": mitigations,
        "residual_risk_and_follow_up": {
            "open_findings": len(findings),
            "failed_probes": probes["counts"].get("fail", 0),
            "failed_scenarios": pack["counts"]["failed"],
            "breached_metrics": metrics["counts"]["breached_metrics"],
            "follow_up": "run POST /incident-monitor/security/reassessments to track changes",
        },
        "self_monitoring_boundary": boundary,
        "external_audit_export": {
            "available": True,
            "source_kind": "svc_monitor",
            "claim": "the audit ledger rows below are hash-chained and append-only",
            "customer_owned_systems": [
                "siem",
                "database",
                "object_storage",
                "linear",
                "github",
                "webhook",
                "telemetry",
                "mcp_tool",
            ],
            "report_endpoint": "/incident-monitor/security/assessment-report",
            "route_preview": "/incident-monitor/route-preview",
            "records": [
                {
                    "seq": e.seq,
                    "type": e.type,
                    "subject": e.subject,
                    "created_at_ms": e.created_at_ms,
                    "hash": e.hash,
                }
                for e in entries
            ],
            "sensitive_values": {"policy": "payloads_omitted"},
        },
    }
    counts = {
        "monitored_sources": len(i["monitored_sources"]),
        "source_readiness_findings": sum(
            f["rule_id"] == "source_readiness_failed" for f in findings
        ),
        "automation_specs": len(i["automation_specs"]),
        "destinations": len(i["destinations"]),
        "routes": len(i["routes"]),
        "findings": len(findings),
        "probe_results": len(probes["results"]),
        "adversarial_scenarios": pack["counts"]["total"],
        "failed_adversarial_scenarios": pack["counts"]["failed"],
        "governance_metric_breaches": metrics["counts"]["breached_metrics"],
        "behavioral_drift_flags": metrics["counts"]["drift_flags"],
        "incidents": len(incidents),
        "destination_receipts": len(posts),
        "protected_audit_events": len(entries),
    }
    report: dict[str, Any] = {
        "schema_version": 1,
        "generated_at_ms": now,
        "scope": {
            "source": "incident_monitor_security_gap_assessment_report",
            "read_only": True,
            "dry_run": True,
            "mutates_external_systems": False,
            "tenant_context": inv["scope"]["tenant_context"],
            "from_ms": from_ms,
            "to_ms": end,
            "source_kind": source_kind,
            "raw_payloads_included": False,
            "raw_payload_request_ignored": bool(body.get("include_raw_payloads")),
        },
        "counts": counts,
        "sections": sections,
        "markdown_summary": _markdown(now, counts, probes["counts"], boundary, mitigations),
        "sensitive_values": {"policy": "redacted_or_summarized", "omitted_fields": OMITTED},
    }
    audit_payload = {"counts": counts, "persisted": persist}
    if internal:
        return report
    if not persist:
        report["evidence_pack"] = {"persisted": False, "reason": "persist_artifact was false"}
        await service.ledger.record(
            "incident_monitor.assessment_report.generated", audit_payload, domain="incident_monitor"
        )
        return report
    run_id = f"incident-monitor-assessment-report-{now}-{uuid.uuid4().hex}"
    artifact = {
        "artifact_id": f"artifact-{uuid.uuid4().hex}",
        "context_run_id": run_id,
        "artifact_type": ARTIFACT_TYPE,
        "path": ARTIFACT_PATH,
        "created_at_ms": now,
    }
    report["evidence_pack"] = {"persisted": True, "kind": "context_run_artifact", **artifact}
    audit = service.ledger.entry(
        "incident_monitor.assessment_report.generated",
        {**audit_payload, "context_run_id": run_id},
        domain="incident_monitor",
        subject=run_id,
    )
    try:
        stored = await service.security.repo.add_artifact(artifact, report, audit)
    except Exception as exc:
        from .errors import IncidentError

        raise IncidentError(
            "the assessment report's evidence could not be written",
            code="INCIDENT_MONITOR_ASSESSMENT_REPORT_EVIDENCE_WRITE_FAILED",
            status=500,
            detail=type(exc).__name__,
        ) from exc
    service.ledger.announce(stored)
    return report
