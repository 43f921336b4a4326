-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/).
CREATE TABLE incident_reassessments (
    record_id TEXT PRIMARY KEY,
    scope_key TEXT NOT NULL,
    version BIGINT NOT NULL,
    trigger_kind TEXT NOT NULL,
    generated_at_ms BIGINT NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (scope_key, version)
);
CREATE INDEX incident_reassessments_time ON incident_reassessments(generated_at_ms, version);

CREATE TABLE incident_reassessment_triggers (
    scope_key TEXT PRIMARY KEY,
    trigger_kind TEXT NOT NULL,
    detail TEXT,
    queued_at_ms BIGINT NOT NULL
);

CREATE TABLE incident_evidence_artifacts (
    artifact_id TEXT PRIMARY KEY,
    context_run_id TEXT NOT NULL UNIQUE,
    artifact_type TEXT NOT NULL,
    path TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX incident_evidence_artifacts_time ON incident_evidence_artifacts(created_at_ms);
