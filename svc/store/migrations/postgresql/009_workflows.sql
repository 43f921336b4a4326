-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/): integers are BIGINT (SQLite's are 64-bit),
-- REAL is DOUBLE PRECISION, BLOB is BYTEA, and an auto-assigned integer key is
-- an identity column.
-- Workflows: runs, hook enable/disable overrides, shared resources written by
-- workflow actions, and the planner's drafts, sessions and applies.
CREATE TABLE workflow_runs (
    run_id TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL,
    status TEXT NOT NULL,
    workspace_root TEXT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX workflow_runs_by_workflow ON workflow_runs(workflow_id, created_at_ms DESC);
CREATE INDEX workflow_runs_by_created ON workflow_runs(created_at_ms DESC);
CREATE INDEX workflow_runs_active ON workflow_runs(status) WHERE status IN ('queued', 'running');

CREATE TABLE workflow_hook_overrides (
    binding_id TEXT PRIMARY KEY,
    enabled BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE TABLE workflow_resources (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    rev BIGINT NOT NULL,
    updated_by TEXT,
    updated_at_ms BIGINT NOT NULL
);

CREATE TABLE workflow_plan_drafts (
    plan_id TEXT PRIMARY KEY,
    session_id TEXT,
    doc TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE TABLE workflow_planner_sessions (
    session_id TEXT PRIMARY KEY,
    project_slug TEXT NOT NULL,
    workspace_root TEXT NOT NULL,
    source_bundle_digest TEXT,
    current_plan_id TEXT,
    doc TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
CREATE INDEX workflow_planner_sessions_by_updated ON workflow_planner_sessions(updated_at_ms DESC);
CREATE UNIQUE INDEX workflow_planner_sessions_by_bundle
    ON workflow_planner_sessions(source_bundle_digest, workspace_root) WHERE source_bundle_digest IS NOT NULL;

CREATE TABLE workflow_plan_applies (
    idempotency_key TEXT PRIMARY KEY,
    plan_id TEXT NOT NULL,
    automation_id TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
