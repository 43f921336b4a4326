"""Continuous reassessment (reference §1.23): versioned records per scope comparing the
findings of now with those of the previous record, a cadence schedule, change triggers.

A record's findings come from a full assessment (posture findings and governance
threshold findings). A fingerprint present before is ``recurring`` (keeps its
``first_seen_at_ms``, one more occurrence), one not seen before is ``new``, and a previous
one absent now is ``resolved``. The monitor's tick runs a scope when it is due by
cadence or has a pending change trigger.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import MonitorConfig
    from .security_repository import SecurityRepository
    from .service import IncidentService

SCOPE = "deployment"
DEPLOYMENT_SCOPE_KEY = "local/local/deployment"
TICK_EVERY_MS = 900_000
"""How often the monitor's tick looks for due scopes (reference: every 15 minutes)."""
TRIGGERS = (
    "scheduled",
    "manual",
    "model_policy_change",
    "workflow_authority_change",
    "mcp_inventory_change",
    "destination_or_route_change",
    "monitored_source_change",
    "tenant_boundary_change",
    "approval_policy_change",
    "recurring_incident_threshold",
    "compliance_mapping_change",
)


def _scope_of(finding: Mapping[str, Any]) -> str:
    for obj in finding.get("affected_objects") or []:
        if obj.get("kind") in ("destination", "route", "workflow"):
            return f"{obj['kind']}:{obj['id']}"
        if obj.get("kind") == "monitored_source":
            return f"source:{obj['id']}"
    return SCOPE


def governance_fingerprint(
    tenant: str, workspace: str, scope: str, rule_id: str, subject: str
) -> str:
    material = "\x1f".join(p.strip().lower() for p in (tenant, workspace, scope, rule_id, subject))
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def current_findings(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for f in report["sections"]["detected_findings"]["findings"]:
        out.append(
            {
                "fingerprint": f["fingerprint"],
                "rule_id": f["rule_id"],
                "scope": _scope_of(f),
                "severity": f["severity"],
                "category": f["category"],
                "summary": f"{f['rule_id']} [{f['category']}/{f['severity']}]",
                "evidence_refs": f["evidence_refs"][:10],
            }
        )
    for f in report["sections"]["governance_maturity_metrics"]["threshold_findings"]:
        subject = f.get("metric_id") or f.get("signal") or ""
        rule_id = f"governance.{f['kind']}.{subject}"
        out.append(
            {
                "fingerprint": governance_fingerprint("local", "local", SCOPE, rule_id, subject),
                "rule_id": rule_id,
                "scope": SCOPE,
                "severity": f["severity"],
                "category": "governance_gap",
                "summary": f"{rule_id} [governance_gap/{f['severity']}]",
                "evidence_refs": [{"kind": "governance_metric", "path": subject}],
            }
        )
    return list({f["fingerprint"]: f for f in out}.values())


def compare(
    now_ms: int, found: list[dict[str, Any]], previous: Mapping[str, Any] | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    before = {f["fingerprint"]: f for f in (previous or {}).get("findings") or []}
    findings = []
    for f in found:
        old = before.get(f["fingerprint"])
        findings.append(
            {
                **f,
                "first_seen_at_ms": old["first_seen_at_ms"] if old else now_ms,
                "last_seen_at_ms": now_ms,
                "occurrence_count": (old["occurrence_count"] + 1) if old else 1,
                "status": "recurring" if old else "new",
            }
        )
    present = {f["fingerprint"] for f in found}
    comparison = {
        "previous_record_id": previous["record_id"] if previous else None,
        "previous_version": previous["version"] if previous else None,
        "new_fingerprints": [f["fingerprint"] for f in findings if f["status"] == "new"],
        "recurring_fingerprints": [
            f["fingerprint"] for f in findings if f["status"] == "recurring"
        ],
        "resolved_fingerprints": sorted(fp for fp in before if fp not in present),
    }
    return findings, comparison


def config_triggers(previous: MonitorConfig, saved: MonitorConfig) -> list[str]:
    """The change triggers a config save implies (reference §1.23)."""
    found = []
    if (previous.routes, previous.destinations, previous.default_destination_ids) != (
        saved.routes,
        saved.destinations,
        saved.default_destination_ids,
    ):
        found.append("destination_or_route_change")
    if previous.monitored_projects != saved.monitored_projects:
        found.append("monitored_source_change")

    def tenants(c: MonitorConfig) -> set[tuple[str | None, str | None]]:
        return {(p.tenant_id, p.workspace_id) for p in c.monitored_projects}

    if tenants(previous) != tenants(saved):
        found.append("tenant_boundary_change")
    if previous.model_policy != saved.model_policy:
        found.append("model_policy_change")
    if previous.mcp_server != saved.mcp_server:
        found.append("mcp_inventory_change")
    if (previous.safety_defaults, previous.require_approval_for_new_issues) != (
        saved.safety_defaults,
        saved.require_approval_for_new_issues,
    ):
        found.append("approval_policy_change")
    return found


class Reassessment:
    def __init__(self, service: IncidentService) -> None:
        self.service = service
        self._last_check_ms: int | None = None

    @property
    def repo(self) -> SecurityRepository:
        return self.service.security.repo

    async def run(self, trigger: str, detail: str | None = None) -> dict[str, Any]:
        from .assessment_report import build_report

        service = self.service
        report = await build_report(service, {"include_probe_results": False}, internal=True)
        now = service.now_ms()
        previous = await self.repo.latest(DEPLOYMENT_SCOPE_KEY)
        findings, comparison = compare(now, current_findings(report), previous)
        version = (previous["version"] + 1) if previous else 1
        record: dict[str, Any] = {
            "schema_version": 1,
            "record_id": f"reassess-{version}-{DEPLOYMENT_SCOPE_KEY}",
            "scope_key": DEPLOYMENT_SCOPE_KEY,
            "tenant_id": None,
            "workspace_id": None,
            "scope": SCOPE,
            "version": version,
            "trigger": trigger,
            "trigger_detail": detail,
            "generated_at_ms": now,
            "mode": "dry_run",
            "mutates_external_systems": False,
            "findings": findings,
            "comparison": comparison,
            "evidence_refs": [{"kind": "assessment_report", "generated_at_ms": now}],
        }
        counts = {k: len(v) for k, v in comparison.items() if k.endswith("_fingerprints")}
        audit = service.ledger.entry(
            "incident_monitor.reassessment.completed",
            {
                "record_id": record["record_id"],
                "version": version,
                "trigger": trigger,
                "findings": len(findings),
                **counts,
            },
            domain="incident_monitor",
            subject=record["record_id"],
        )
        service.ledger.announce(await self.repo.add_record(record, audit))
        return record

    async def schedule(self) -> list[dict[str, Any]]:
        config = self.service.config.reassessment
        now = self.service.now_ms()
        rows: dict[str, tuple[int | None, int | None]] = {
            key: (last, version) for key, last, version in await self.repo.schedule_rows()
        }
        rows.setdefault(DEPLOYMENT_SCOPE_KEY, (None, None))
        out = []
        for key, (last, version) in sorted(rows.items()):
            due = last + config.cadence_ms if last is not None else now
            out.append(
                {
                    "scope_key": key,
                    "scope": SCOPE,
                    "last_completed_at_ms": last,
                    "next_due_at_ms": due,
                    "overdue": now > due + config.overdue_grace_ms,
                    "last_version": version,
                }
            )
        return out

    async def queue(self, kind: str, detail: str | None) -> None:
        service = self.service
        audit = service.ledger.entry(
            "incident_monitor.reassessment.triggered",
            {"scope_key": DEPLOYMENT_SCOPE_KEY, "trigger": kind, "detail": detail},
            domain="incident_monitor",
            subject=DEPLOYMENT_SCOPE_KEY,
        )
        stored = await self.repo.queue(
            DEPLOYMENT_SCOPE_KEY, kind, detail, now_ms=service.now_ms(), audit=audit
        )
        if stored is not None:
            service.ledger.announce(stored)

    async def tick(self) -> None:
        service = self.service
        config = service.config
        if not config.enabled or config.paused:
            return
        now = service.now_ms()
        if self._last_check_ms is None:
            self._last_check_ms = now  # the first look is one period after start-up
        if now - self._last_check_ms < TICK_EVERY_MS:
            return
        self._last_check_ms = now
        pending = {key: (kind, detail) for key, kind, detail, _ in await self.repo.pending()}
        for row in await self.schedule():
            if row["scope_key"] in pending:
                await self.run(*pending[row["scope_key"]])
            elif now >= row["next_due_at_ms"]:
                await self.run("scheduled", "cadence due")
