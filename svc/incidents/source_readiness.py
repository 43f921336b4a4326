"""Source readiness (reference §1.20): governance, lineage, freshness, schema and
protection metadata of each monitored project and log source. Advisory unless
``block_unready_sources``."""

from __future__ import annotations

from typing import Any

from .config import LogSource, MonitorConfig, Project, SourceBinding, source_binding
from .fingerprints import sha256_hex
from .records import LogSourceState

_ABSENT = ("", "local", "null")
_DRIFT_OK = ("none", "stable", "accepted", "up_to_date", "no_drift")
_DRIFT_BAD = ("drifted", "drift_detected", "detected", "outdated")


def _present(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, str):
        return value.strip().lower() not in _ABSENT
    return True


def _finding(
    project_id: str, source_id: str | None, rule: str, category: str, severity: str, title: str
) -> dict[str, Any]:
    return {
        "finding_id": "srf_" + sha256_hex([project_id, source_id, rule])[:16],
        "rule_id": rule,
        "category": category,
        "severity": severity,
        "title": title,
        "detail": title,
        "evidence_refs": [
            f"incident_monitor.config.monitored_projects[{project_id}]"
            + (f".log_sources[{source_id}]" if source_id else "")
        ],
        "recommendation": f"Record {category} metadata for this source.",
    }


def _row(
    project: Project,
    source: LogSource | None,
    binding: SourceBinding,
    state: LogSourceState | None,
    now_ms: int,
) -> dict[str, Any]:
    pid, sid = project.project_id, source.source_id if source else None
    enabled = project.enabled and not project.paused
    if source is not None:
        enabled = enabled and source.enabled and not source.paused
    row: dict[str, Any] = {
        "project_id": pid,
        "source_id": sid,
        "source_kind": binding.source_kind,
        "enabled": enabled,
    }
    flags = dict.fromkeys(("governance", "lineage", "freshness", "schema", "protection"), True)
    findings: list[dict[str, Any]] = []
    if not enabled:
        row.update({f"{k}_ready": False for k in flags})
        row.update(ready=False, missing=[], warnings=["Source is disabled or paused"], findings=[])
        return row
    r = binding.data_readiness

    def fail(flag: str | None, rule: str, category: str, severity: str, title: str) -> None:
        if flag:
            flags[flag] = False
        findings.append(_finding(pid, sid, rule, category, severity, title))

    for key in ("source_owner", "system_of_record", "data_classification", "allowed_use"):
        if not _present(r.get(key)):
            fail(
                "governance",
                "source_governance_metadata_missing",
                "governance",
                "high" if key in ("data_classification", "allowed_use") else "medium",
                f"{key} is missing",
            )
    if not (_present(binding.tenant_id) and _present(binding.workspace_id)):
        fail(
            "governance",
            "source_boundary_context_missing",
            "governance",
            "high",
            "tenant_id and workspace_id are missing",
        )
    if not (_present(r.get("legal_basis")) or _present(r.get("authorization_marker"))):
        fail(
            "governance",
            "source_authorization_missing",
            "governance",
            "high",
            "legal_basis or authorization_marker is missing",
        )
    if not (_present(r.get("source_of_truth")) or _present(r.get("lineage_ref"))):
        fail("lineage", "source_lineage_missing", "lineage", "high", "lineage is missing")
    sla = r.get("freshness_sla_ms")
    observed = max(
        [int(r.get("last_observed_at_ms") or 0)]
        + (
            [
                state.last_submitted_at_ms or 0,
                state.last_candidate_at_ms or 0,
                state.last_poll_at_ms or 0,
            ]
            if state
            else []
        )
    )
    if not isinstance(sla, int) or sla <= 0:
        fail(
            "freshness",
            "source_freshness_sla_missing",
            "freshness",
            "medium",
            "freshness_sla_ms is missing",
        )
    elif not observed:
        fail(
            "freshness",
            "source_freshness_observation_missing",
            "freshness",
            "medium",
            "no observation of this source yet",
        )
    elif now_ms > observed + sla:
        fail("freshness", "source_stale", "freshness", "high", "source is stale")
    version = binding.event_schema_version
    expected = r.get("expected_schema_version")
    if not _present(version):
        fail(
            "schema",
            "source_schema_version_missing",
            "schema",
            "high",
            "event_schema_version is missing",
        )
    elif _present(expected) and str(expected).lower() != str(version).lower():
        fail(
            "schema",
            "source_schema_version_mismatch",
            "schema",
            "high",
            "event_schema_version differs from the expected one",
        )
    drift = str(r.get("schema_drift_status") or "").strip().lower()
    if not drift:
        fail(
            "schema",
            "source_schema_drift_status_missing",
            "schema",
            "medium",
            "schema_drift_status is missing",
        )
    elif drift in _DRIFT_BAD:
        fail("schema", "source_schema_drift_detected", "schema", "high", "schema drift detected")
    elif drift not in _DRIFT_OK:
        fail(
            "schema",
            "source_schema_drift_unknown",
            "schema",
            "medium",
            "schema drift status is unknown",
        )
    if not _present(binding.redaction_profile):
        fail(
            "protection",
            "source_redaction_profile_missing",
            "protection",
            "high",
            "redaction_profile is missing",
        )
    if not _present(binding.retention_profile):
        fail(
            "protection",
            "source_retention_profile_missing",
            "protection",
            "medium",
            "retention_profile is missing",
        )
    if not _present(r.get("quality_notes")):
        fail(None, "source_quality_notes_missing", "quality", "low", "quality_notes is missing")
    if state is not None and (state.last_error or state.consecutive_errors):
        fail(None, "source_runtime_unhealthy", "runtime", "medium", "the log tail is failing")
    row.update({f"{k}_ready": v for k, v in flags.items()})
    row.update(
        ready=not findings and all(flags.values()),
        missing=[f["rule_id"] for f in findings],
        warnings=[f"{f['severity']}: {f['title']}" for f in findings],
        findings=findings,
        last_observed_at_ms=observed or None,
        stale_after_ms=(observed + sla) if observed and isinstance(sla, int) else None,
    )
    return row


def source_readiness(
    config: MonitorConfig, states: dict[tuple[str, str], LogSourceState], now_ms: int
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for project in config.monitored_projects:
        rows.append(_row(project, None, source_binding(project, None), None, now_ms))
        for source in project.log_sources:
            state = states.get((project.project_id, source.source_id))
            rows.append(_row(project, source, source_binding(project, source), state, now_ms))
    return rows
