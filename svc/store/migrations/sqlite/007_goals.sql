-- Orchestrations (draft = version 0, published versions 1..N) and long-running goals.
CREATE TABLE goal_orchestrations (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_key TEXT NOT NULL DEFAULT '',
    orchestration_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,                       -- draft | published | archived
    name TEXT NOT NULL,
    record TEXT NOT NULL,                       -- the orchestration as JSON
    workflow_snapshots TEXT,                    -- published: automation_id -> frozen definition
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    published_at_ms INTEGER,
    PRIMARY KEY (org_id, workspace_id, deployment_key, orchestration_id, version)
);

CREATE TABLE goal_goals (
    goal_id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_key TEXT NOT NULL DEFAULT '',
    orchestration_id TEXT NOT NULL,
    orchestration_version INTEGER NOT NULL,
    status TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX goal_goals_by_tenant ON goal_goals(org_id, workspace_id, deployment_key, updated_at_ms DESC, goal_id);
CREATE INDEX goal_goals_open ON goal_goals(status)
    WHERE status NOT IN ('completed', 'failed', 'cancelled', 'expired');

CREATE TABLE goal_handoffs (
    handoff_id TEXT PRIMARY KEY,
    goal_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    status TEXT NOT NULL,
    consumed_by_run_id TEXT UNIQUE,
    created_at_ms INTEGER NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (goal_id, idempotency_key)
);
CREATE INDEX goal_handoffs_by_goal ON goal_handoffs(goal_id, created_at_ms, handoff_id);

CREATE TABLE goal_run_links (
    goal_id TEXT NOT NULL,
    hop_index INTEGER NOT NULL,
    run_id TEXT NOT NULL UNIQUE,
    triggering_handoff_id TEXT UNIQUE,
    record TEXT NOT NULL,
    PRIMARY KEY (goal_id, hop_index)
);

CREATE TABLE goal_waits (
    wait_id TEXT PRIMARY KEY,
    goal_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX goal_waits_by_goal ON goal_waits(goal_id, created_at_ms, wait_id);

-- Durable goal events. The cursor is the row id: monotonic across all goals and
-- across restarts (AUTOINCREMENT never reuses a pruned id).
CREATE TABLE goal_events (
    cursor INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    goal_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    occurred_at_ms INTEGER NOT NULL,
    record TEXT NOT NULL,
    snapshot TEXT                               -- projection state right after the event
);
CREATE INDEX goal_events_by_goal ON goal_events(goal_id, cursor);
CREATE INDEX goal_events_by_run ON goal_events(run_id, seq);

-- Idempotency ledger for tools and projection actions.
CREATE TABLE goal_requests (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_key TEXT NOT NULL DEFAULT '',
    operation TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_digest TEXT NOT NULL,
    response TEXT,
    created_at_ms INTEGER NOT NULL,
    completed_at_ms INTEGER,
    PRIMARY KEY (org_id, workspace_id, deployment_key, operation, idempotency_key)
);

-- Legacy file handoff envelopes (<workspace>/shared/handoffs/**), imported at start-up.
CREATE TABLE goal_legacy_handoffs (
    handoff_id TEXT PRIMARY KEY,
    source_path TEXT NOT NULL,
    source_digest TEXT NOT NULL,
    status TEXT NOT NULL,                       -- inbox | approved | archived
    record TEXT NOT NULL,
    imported_at_ms INTEGER NOT NULL
);

CREATE TABLE goal_legacy_quarantine (
    source_path TEXT PRIMARY KEY,
    source_digest TEXT,
    error TEXT NOT NULL,
    quarantined_at_ms INTEGER NOT NULL
);

CREATE TABLE goal_migration_sources (
    source_kind TEXT NOT NULL,
    source_path TEXT NOT NULL,
    record_count INTEGER NOT NULL,
    imported_at_ms INTEGER NOT NULL,
    PRIMARY KEY (source_kind, source_path)
);
