-- Creation order as a named column. Listings of routines, automations v2, their
-- runs and missions order rows created in the same millisecond by creation order;
-- that was SQLite's implicit rowid, which no other database has. Each table is
-- rebuilt with `seq INTEGER PRIMARY KEY` (in SQLite an alias of the rowid, so
-- inserts assign it as before, upserts keep it, and the layout on disk is the
-- same: a rowid table plus a unique index on the id). Existing rows keep their
-- rowid as seq, so their order is unchanged.

CREATE TABLE automations_routines_new (
    seq INTEGER PRIMARY KEY,
    routine_id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,                      -- active | paused
    record TEXT NOT NULL,                      -- the routine definition (JSON)
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
INSERT INTO automations_routines_new(seq, routine_id, status, record, created_at_ms, updated_at_ms)
    SELECT rowid, routine_id, status, record, created_at_ms, updated_at_ms
    FROM automations_routines;
DROP TABLE automations_routines;
ALTER TABLE automations_routines_new RENAME TO automations_routines;

CREATE TABLE automations_routine_runs_new (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    routine_id TEXT NOT NULL,
    status TEXT NOT NULL,
    trigger_type TEXT NOT NULL,
    run_count INTEGER NOT NULL DEFAULT 1,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    fired_at_ms INTEGER NOT NULL,
    scheduled_at_ms INTEGER,
    started_at_ms INTEGER,
    finished_at_ms INTEGER,
    requires_approval INTEGER NOT NULL DEFAULT 0,
    approval_reason TEXT,
    denial_reason TEXT,
    paused_reason TEXT,
    detail TEXT,
    snapshot TEXT NOT NULL,
    artifacts TEXT NOT NULL DEFAULT '[]',
    session_ids TEXT NOT NULL DEFAULT '[]',
    latest_session_id TEXT,
    model TEXT,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    total_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0
);
INSERT INTO automations_routine_runs_new
    SELECT rowid, run_id, routine_id, status, trigger_type, run_count, created_at_ms,
        updated_at_ms, fired_at_ms, scheduled_at_ms, started_at_ms, finished_at_ms,
        requires_approval, approval_reason, denial_reason, paused_reason, detail, snapshot,
        artifacts, session_ids, latest_session_id, model, prompt_tokens, completion_tokens,
        total_tokens, estimated_cost_usd
    FROM automations_routine_runs;
DROP TABLE automations_routine_runs;
ALTER TABLE automations_routine_runs_new RENAME TO automations_routine_runs;
-- Listings are newest first by seq, so one index per filter is enough.
CREATE INDEX automations_routine_runs_by_routine ON automations_routine_runs(routine_id);
CREATE INDEX automations_routine_runs_unsettled ON automations_routine_runs(status)
    WHERE status IN ('queued', 'running', 'pending_approval', 'paused');

CREATE TABLE automations_v2_new (
    seq INTEGER PRIMARY KEY,
    automation_id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    spec TEXT NOT NULL,
    creator_kind TEXT NOT NULL,                -- human | agent | system
    creator_id TEXT,
    provenance TEXT NOT NULL DEFAULT '{}',
    next_fire_at_ms INTEGER,
    last_fired_at_ms INTEGER,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
INSERT INTO automations_v2_new
    SELECT rowid, automation_id, name, status, spec, creator_kind, creator_id, provenance,
        next_fire_at_ms, last_fired_at_ms, created_at_ms, updated_at_ms
    FROM automations_v2;
DROP TABLE automations_v2;
ALTER TABLE automations_v2_new RENAME TO automations_v2;
CREATE INDEX automations_v2_by_creator ON automations_v2(creator_kind, creator_id, created_at_ms);

CREATE TABLE automations_v2_runs_new (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    automation_id TEXT NOT NULL,
    status TEXT NOT NULL,
    trigger_type TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    record TEXT NOT NULL                       -- the run record (JSON)
);
INSERT INTO automations_v2_runs_new
    SELECT rowid, run_id, automation_id, status, trigger_type, created_at_ms, updated_at_ms,
        record
    FROM automations_v2_runs;
DROP TABLE automations_v2_runs;
ALTER TABLE automations_v2_runs_new RENAME TO automations_v2_runs;
CREATE INDEX automations_v2_runs_by_automation ON automations_v2_runs(automation_id);
CREATE INDEX automations_v2_runs_unsettled ON automations_v2_runs(status)
    WHERE status IN ('queued', 'running', 'awaiting_approval');

CREATE TABLE automations_missions_new (
    seq INTEGER PRIMARY KEY,
    mission_id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    revision INTEGER NOT NULL,
    record TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
INSERT INTO automations_missions_new
    SELECT rowid, mission_id, status, revision, record, created_at_ms, updated_at_ms
    FROM automations_missions;
DROP TABLE automations_missions;
ALTER TABLE automations_missions_new RENAME TO automations_missions;
