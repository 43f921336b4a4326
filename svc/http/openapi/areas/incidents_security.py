"""``/incident-monitor/security``: dry-run security reviews (human admin callers only)."""

from ..registry import ANY_BODY, OBJECT, op

OPERATIONS = {
    "authority_inventory": op("The authority this engine's agents hold", returns=OBJECT),
    "posture_checks": op("Security posture checks", returns=OBJECT),
    "assessment_probes": op("Run dry-run assessment probes", body=ANY_BODY, returns=OBJECT),
    "assessment_report": op("An assessment report", body=ANY_BODY, returns=OBJECT),
    "evidence_artifacts": op("Evidence artifacts", returns=OBJECT),
    "evidence_artifact": op("A context run's evidence artifact", returns=OBJECT),
    "deployment_cards": op("Deployment cards", body=ANY_BODY, returns=OBJECT),
    "scenario_packs": op("Scenario packs", returns=OBJECT),
    "run_scenario_pack": op("Run a scenario pack (dry run)", body=ANY_BODY, returns=OBJECT),
    "governance_metrics": op("Governance metrics", body=ANY_BODY, returns=OBJECT),
    "reassessments": op("Reassessments", returns=OBJECT),
    "reassess_now": op("Reassess now", returns=OBJECT),
}
