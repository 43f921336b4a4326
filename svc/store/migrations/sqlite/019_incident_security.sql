-- Security and governance state of the incident monitor (svc/incidents): continuous
-- reassessment records, the pending change trigger of each scope (one per scope), and
-- the evidence artifacts of assessment reports.
CREATE TABLE incident_reassessments (
    record_id TEXT PRIMARY KEY,
    scope_key TEXT NOT NULL,
    version INTEGER NOT NULL,
    trigger_kind TEXT NOT NULL,
    generated_at_ms INTEGER NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (scope_key, version)
);
CREATE INDEX incident_reassessments_time ON incident_reassessments(generated_at_ms, version);

CREATE TABLE incident_reassessment_triggers (
    scope_key TEXT PRIMARY KEY,
    trigger_kind TEXT NOT NULL,
    detail TEXT,
    queued_at_ms INTEGER NOT NULL
);

CREATE TABLE incident_evidence_artifacts (
    artifact_id TEXT PRIMARY KEY,
    context_run_id TEXT NOT NULL UNIQUE,
    artifact_type TEXT NOT NULL,
    path TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX incident_evidence_artifacts_time ON incident_evidence_artifacts(created_at_ms);
