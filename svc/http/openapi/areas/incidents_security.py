"""``/incident-monitor/security``: dry-run security reviews (human admin callers only)."""

from ..records import incidents_security as s
from ..registry import ANY_BODY, op

OPERATIONS = {
    "authority_inventory": op(
        "The authority this engine's agents hold", returns=s.AUTHORITY_INVENTORY
    ),
    "posture_checks": op("Security posture checks", returns=s.POSTURE_CHECKS),
    "assessment_probes": op("Run dry-run assessment probes", body=ANY_BODY, returns=s.PROBE_RUN),
    "assessment_report": op("An assessment report", body=ANY_BODY, returns=s.ASSESSMENT_REPORT),
    "evidence_artifacts": op("Evidence artifacts", returns=s.EVIDENCE_ARTIFACTS),
    "evidence_artifact": op("A context run's evidence artifact", returns=s.EVIDENCE_ARTIFACT),
    "deployment_cards": op("Deployment cards", body=ANY_BODY, returns=s.DEPLOYMENT_CARDS),
    "scenario_packs": op("Scenario packs", returns=s.SCENARIO_PACKS),
    "run_scenario_pack": op(
        "Run a scenario pack (dry run)", body=ANY_BODY, returns=s.SCENARIO_PACK_RUN
    ),
    "governance_metrics": op("Governance metrics", body=ANY_BODY, returns=s.GOVERNANCE_METRICS),
    "reassessments": op("Reassessments", returns=s.REASSESSMENTS),
    "reassess_now": op("Reassess now", returns=s.REASSESSMENT),
}
