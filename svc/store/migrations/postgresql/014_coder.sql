-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/): integers are BIGINT (SQLite's are 64-bit).
-- Coder projects: the repo and repohost project binding of each project, and the
-- coder runs that project items became (one live run per item).

CREATE TABLE coder_bindings (
    project_id TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE TABLE coder_runs (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    project_item_id TEXT,
    status TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
CREATE INDEX coder_runs_item ON coder_runs(project_id, project_item_id, created_at_ms);
