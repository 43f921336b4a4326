-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/): integers are BIGINT (SQLite's are 64-bit),
-- REAL is DOUBLE PRECISION, BLOB is BYTEA, and an auto-assigned integer key is
-- an identity column.
-- Routines (automations v1). The definition is a JSON document.
CREATE TABLE automations_routines (
    routine_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,                      -- active | paused
    record TEXT NOT NULL,                      -- the routine definition (JSON)
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- Fire times in a narrow table of their own: a scheduler tick updates thousands
-- of them, and narrow rows keep that to a few pages.
CREATE TABLE automations_routine_fire_times (
    routine_id TEXT PRIMARY KEY,
    next_fire_at_ms BIGINT,
    last_fired_at_ms BIGINT
);

-- One row per routine run. `snapshot` is the routine as it was when the run was
-- created (entrypoint, args, allowed_tools, output_targets, ...).
CREATE TABLE automations_routine_runs (
    run_id TEXT PRIMARY KEY,
    routine_id TEXT NOT NULL,
    status TEXT NOT NULL,
    trigger_type TEXT NOT NULL,
    run_count BIGINT NOT NULL DEFAULT 1,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    fired_at_ms BIGINT NOT NULL,
    scheduled_at_ms BIGINT,
    started_at_ms BIGINT,
    finished_at_ms BIGINT,
    requires_approval BIGINT NOT NULL DEFAULT 0,
    approval_reason TEXT,
    denial_reason TEXT,
    paused_reason TEXT,
    detail TEXT,
    snapshot TEXT NOT NULL,
    artifacts TEXT NOT NULL DEFAULT '[]',
    session_ids TEXT NOT NULL DEFAULT '[]',
    latest_session_id TEXT,
    model TEXT,
    prompt_tokens BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    total_tokens BIGINT NOT NULL DEFAULT 0,
    estimated_cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0
);
-- Listings are newest first by rowid (creation order: saves are upserts, which keep it),
-- so one index per filter is enough.
CREATE INDEX automations_routine_runs_by_routine ON automations_routine_runs(routine_id);
CREATE INDEX automations_routine_runs_unsettled ON automations_routine_runs(status)
    WHERE status IN ('queued', 'running', 'pending_approval', 'paused');

-- Automations v2 (multi-agent DAGs). `spec` is the canonical definition.
CREATE TABLE automations_v2 (
    automation_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    spec TEXT NOT NULL,
    creator_kind TEXT NOT NULL,                -- human | agent | system
    creator_id TEXT,
    provenance TEXT NOT NULL DEFAULT '{}',
    next_fire_at_ms BIGINT,
    last_fired_at_ms BIGINT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
CREATE INDEX automations_v2_by_creator ON automations_v2(creator_kind, creator_id, created_at_ms);

CREATE TABLE automations_v2_runs (
    run_id TEXT PRIMARY KEY,
    automation_id TEXT NOT NULL,
    status TEXT NOT NULL,
    trigger_type TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    record TEXT NOT NULL                       -- the run record (JSON)
);
CREATE INDEX automations_v2_runs_by_automation ON automations_v2_runs(automation_id);
CREATE INDEX automations_v2_runs_unsettled ON automations_v2_runs(status)
    WHERE status IN ('queued', 'running', 'awaiting_approval');

-- Governance state per agent that creates automations v2 (set by humans).
CREATE TABLE automations_agent_governance (
    agent_id TEXT PRIMARY KEY,
    creation_paused BIGINT NOT NULL DEFAULT 0,
    paused_reason TEXT,
    reviewed_creations BIGINT NOT NULL DEFAULT 0,
    quota_override_until_ms BIGINT,
    capability_grants TEXT NOT NULL DEFAULT '{}',  -- capability key -> expires_at_ms (null: no expiry)
    updated_at_ms BIGINT NOT NULL
);

-- Every automation an agent created (kept after deletion: quotas count creations).
CREATE TABLE automations_agent_creations (
    agent_id TEXT NOT NULL,
    automation_id TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX automations_agent_creations_by_agent ON automations_agent_creations(agent_id, created_at_ms);

-- Missions and their work items (the mission model and reducer).
CREATE TABLE automations_missions (
    mission_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    revision BIGINT NOT NULL,
    record TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
