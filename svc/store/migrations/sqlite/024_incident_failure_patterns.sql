-- The incident monitor's failure-pattern memory (reference §1.7 step 2, §1.10.2): what an
-- approved or triaged draft taught the monitor, one row per repo and fingerprint. An admin
-- report matching a stored pattern is suppressed as a known failure. `doc` holds the
-- summary, canonical markers, symptoms and linked issues the match scores against.
CREATE TABLE incident_failure_patterns (
    pattern_id TEXT PRIMARY KEY,
    repo TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    recurrence_count INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (repo, fingerprint)
);
CREATE INDEX incident_failure_patterns_recent
    ON incident_failure_patterns(repo, updated_at_ms DESC);

-- A publish reads the incident of its draft: without this it scanned every incident.
CREATE INDEX incident_records_draft ON incident_records(draft_id);
