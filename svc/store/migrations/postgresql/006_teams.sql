-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/): integers are BIGINT (SQLite's are 64-bit),
-- REAL is DOUBLE PRECISION, BLOB is BYTEA, and an auto-assigned integer key is
-- an identity column.
-- Agent teams: instances, queued spawn approvals, and mission budget counters.
-- Unlike a process-memory registry, all of it survives an engine restart.
CREATE TABLE teams_instances (
    id TEXT PRIMARY KEY,
    mission_id TEXT NOT NULL,
    parent_instance_id TEXT,
    role TEXT NOT NULL,
    template_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    run_id TEXT,
    status TEXT NOT NULL,
    budget TEXT NOT NULL DEFAULT '{}',        -- resolved BudgetLimit (snake_case)
    usage TEXT,                               -- budgetUsage; NULL until first reported
    skill_hash TEXT NOT NULL,
    capabilities TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL,
    justification TEXT NOT NULL DEFAULT '',
    workspace_root TEXT NOT NULL,
    prompt TEXT,                              -- the task the instance was spawned with
    system_prompt TEXT,                       -- the template's, applied to every run
    reason TEXT,
    exhausted_by TEXT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    ended_at_ms BIGINT
);
CREATE INDEX teams_instances_by_mission ON teams_instances(mission_id);
CREATE INDEX teams_instances_by_status ON teams_instances(status);
CREATE INDEX teams_instances_by_session ON teams_instances(session_id);
CREATE INDEX teams_instances_by_parent ON teams_instances(parent_instance_id);

CREATE TABLE teams_spawn_approvals (
    id TEXT PRIMARY KEY,
    mission_id TEXT NOT NULL,
    request TEXT NOT NULL,                    -- the stored SpawnRequest (wire form)
    decision_code TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX teams_spawn_approvals_by_created ON teams_spawn_approvals(created_at_ms);

CREATE TABLE teams_missions (
    id TEXT PRIMARY KEY,
    limits TEXT NOT NULL DEFAULT '{}',        -- mission_total_budget when last opened
    usage TEXT NOT NULL DEFAULT '{}',         -- mission budget counters
    exhausted_by TEXT,
    cancelled_at_ms BIGINT,
    cancel_reason TEXT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
