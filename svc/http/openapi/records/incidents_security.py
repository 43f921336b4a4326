"""Records of the incident monitor's dry-run security reviews (``/incident-monitor/security``).

The reviews are large reference shapes; the records state the envelope every review has
and the fields clients read, and leave the sections open.
"""

from __future__ import annotations

from ..registry import Record
from .common import ARR, BOOL, INT, OBJ, STR, array_of, obj

_SCOPE = obj({"source": STR, "read_only": BOOL, "dry_run": BOOL, "mutates_external_systems": BOOL})
_REVIEW = {"schema_version": INT, "generated_at_ms": INT, "scope": _SCOPE}

AUTHORITY_INVENTORY = Record(
    "SecurityAuthorityInventory",
    obj(
        {
            **_REVIEW,
            "inventory": obj(
                {
                    "workflows": ARR,
                    "automation_specs": ARR,
                    "mcp": OBJ,
                    "incident_monitor": OBJ,
                    "destinations": ARR,
                    "routes": ARR,
                    "monitored_sources": ARR,
                    "scoped_intake_keys": ARR,
                }
            ),
            "counts": {"type": "object", "additionalProperties": INT},
            "sensitive_values": OBJ,
        }
    ),
)
POSTURE_FINDING = Record(
    "SecurityPostureFinding",
    obj(
        {
            "finding_id": STR,
            "fingerprint": STR,
            "rule_id": STR,
            "category": STR,
            "severity": STR,
            "title": STR,
        }
    ),
)
POSTURE_CHECKS = Record(
    "SecurityPostureChecks",
    obj(
        {
            **_REVIEW,
            "mode": STR,
            "rules": array_of(obj({"rule_id": STR, "category": STR, "severity": STR})),
            "counts": obj({"findings": INT, "by_severity": OBJ}),
            "findings": array_of(POSTURE_FINDING),
        }
    ),
)
PROBE_RUN = Record(
    "SecurityProbeRun",
    obj(
        {
            **_REVIEW,
            "mode": STR,
            "selected_probe_ids": ARR,
            "counts": obj(
                {
                    "results": INT,
                    "pass": INT,
                    "fail": INT,
                    "blocked": INT,
                    "by_status": OBJ,
                    "draft_suggestions": INT,
                }
            ),
            "results": array_of(obj({"probe_id": STR, "status": STR})),
        }
    ),
)
ASSESSMENT_REPORT = Record(
    "SecurityAssessmentReport",
    obj(
        {
            **_REVIEW,
            "counts": OBJ,
            "sections": OBJ,
            "markdown_summary": STR,
            "sensitive_values": OBJ,
        },
        {"evidence_pack": obj({"persisted": BOOL})},
    ),
)
DEPLOYMENT_CARDS = Record(
    "SecurityDeploymentCards",
    obj(
        {
            **_REVIEW,
            "card_policy": OBJ,
            "counts": OBJ,
            "cards": array_of(OBJ),
            "findings": array_of(OBJ),
            "markdown_export": STR,
            "authority_inventory": OBJ,
            "sensitive_values": OBJ,
        }
    ),
)
EVIDENCE_ARTIFACTS = Record(
    "SecurityEvidenceArtifacts", obj({"artifacts": array_of(OBJ), "count": INT})
)
EVIDENCE_ARTIFACT = Record("SecurityEvidenceArtifact", obj({"artifact": OBJ}))
_PACK = obj({"pack_id": STR, "scenarios": ARR}, {"version": {}, "description": {}})
SCENARIO_PACKS = Record(
    "SecurityScenarioPacks",
    obj({"schema_version": INT, "scope": _SCOPE, "packs": array_of(_PACK), "note": STR}),
)
SCENARIO_PACK_RUN = Record(
    "SecurityScenarioPackRun",
    obj(
        {
            "schema_version": INT,
            "scope": _SCOPE,
            "pack": obj(
                {
                    "pack_id": STR,
                    "mode": STR,
                    "mutates_external_systems": BOOL,
                    "counts": obj({"total": INT, "passed": INT, "failed": INT, "blocked": INT}),
                    "results": array_of(obj({"status": STR})),
                }
            ),
        }
    ),
)
GOVERNANCE_METRICS = Record(
    "SecurityGovernanceMetrics", obj({"scope": _SCOPE, "governance_maturity": OBJ})
)
REASSESSMENTS = Record(
    "SecurityReassessments",
    obj(
        {
            "scope": _SCOPE,
            "counts": obj({"records": INT, "overdue_scopes": INT}),
            "schedule": array_of(OBJ),
            "records": array_of(OBJ),
        }
    ),
)
REASSESSMENT = Record(
    "SecurityReassessment",
    obj({"scope": _SCOPE, "reassessment": OBJ, "schedule": array_of(OBJ)}),
)

RECORDS = (
    AUTHORITY_INVENTORY,
    POSTURE_FINDING,
    POSTURE_CHECKS,
    PROBE_RUN,
    ASSESSMENT_REPORT,
    DEPLOYMENT_CARDS,
    EVIDENCE_ARTIFACTS,
    EVIDENCE_ARTIFACT,
    SCENARIO_PACKS,
    SCENARIO_PACK_RUN,
    GOVERNANCE_METRICS,
    REASSESSMENTS,
    REASSESSMENT,
)
