-- The incident monitor: its configuration document, drafts, incidents, delivery
-- receipts (posts), scoped intake keys, log-source tail state and small state
-- (the runtime-failure cursor). Records are JSON documents beside the columns the
-- monitor looks them up by; `dedup_key` holds the de-duplication identity.
CREATE TABLE incident_config (
    id TEXT PRIMARY KEY,
    doc TEXT NOT NULL,
    updated_at_ms INTEGER NOT NULL
);

CREATE TABLE incident_drafts (
    draft_id TEXT PRIMARY KEY,
    dedup_key TEXT NOT NULL UNIQUE,            -- repo, fingerprint, project, log source
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX incident_drafts_recent ON incident_drafts(created_at_ms DESC, draft_id DESC);

CREATE TABLE incident_records (
    incident_id TEXT PRIMARY KEY,
    dedup_key TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL,
    draft_id TEXT,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX incident_records_recent ON incident_records(updated_at_ms DESC, incident_id DESC);

CREATE TABLE incident_posts (
    post_id TEXT PRIMARY KEY,
    draft_id TEXT NOT NULL,
    destination_id TEXT,
    idempotency_key TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX incident_posts_recent ON incident_posts(updated_at_ms DESC, post_id DESC);
CREATE INDEX incident_posts_idempotency ON incident_posts(idempotency_key);

CREATE TABLE incident_intake_keys (
    key_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    scopes TEXT NOT NULL,                      -- JSON array
    created_at_ms INTEGER NOT NULL,
    last_used_at_ms INTEGER
);

CREATE TABLE incident_log_sources (
    project_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    state TEXT NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    PRIMARY KEY (project_id, source_id)
);

CREATE TABLE incident_monitor_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
