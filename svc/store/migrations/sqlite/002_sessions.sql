-- Chat sessions, their transcripts and their runs.
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    directory TEXT NOT NULL,
    project_id TEXT,
    parent_id TEXT,
    provider_id TEXT,
    model_id TEXT,
    settings TEXT NOT NULL DEFAULT '{}',      -- temperature, top_p, max_tokens, agent, tool policy
    source_kind TEXT,
    source_metadata TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    todos TEXT NOT NULL DEFAULT '[]',
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
CREATE INDEX sessions_by_updated ON sessions(updated_at_ms DESC);

CREATE TABLE messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id TEXT,
    role TEXT NOT NULL,
    parts TEXT NOT NULL DEFAULT '[]',
    info TEXT NOT NULL DEFAULT '{}',
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
CREATE INDEX messages_by_session ON messages(session_id, seq);

CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    status TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'session',
    provider_id TEXT,
    model_id TEXT,
    client_id TEXT,
    agent_id TEXT,
    idempotency_key TEXT,
    request_hash TEXT,
    allowed_tools TEXT,
    user_message_id TEXT,
    assistant_message_id TEXT,
    error_code TEXT,
    error_message TEXT,
    failure_category TEXT,
    usage TEXT NOT NULL DEFAULT '{}',
    metadata TEXT NOT NULL DEFAULT '{}',
    started_at_ms INTEGER NOT NULL,
    last_activity_at_ms INTEGER NOT NULL,
    finished_at_ms INTEGER
);
CREATE INDEX runs_by_session ON runs(session_id, started_at_ms);
CREATE INDEX runs_active ON runs(status) WHERE status = 'running';
CREATE UNIQUE INDEX runs_by_idempotency ON runs(session_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Permission requests raised by runs, and the standing rules replies create.
CREATE TABLE permission_requests (
    id TEXT PRIMARY KEY,
    session_id TEXT,
    run_id TEXT,
    tool TEXT NOT NULL,
    permission TEXT NOT NULL,
    pattern TEXT NOT NULL,
    args TEXT NOT NULL DEFAULT '{}',
    call_id TEXT,
    message_id TEXT,
    status TEXT NOT NULL,
    reply TEXT,
    decided_by TEXT,
    standing_rule_id TEXT,
    action_digest TEXT NOT NULL,
    requested_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    decided_at_ms INTEGER
);
CREATE INDEX permission_requests_pending ON permission_requests(status) WHERE status = 'pending';

CREATE TABLE permission_rules (
    id TEXT PRIMARY KEY,
    permission TEXT NOT NULL,
    pattern TEXT NOT NULL,
    action TEXT NOT NULL,
    session_id TEXT,
    created_at_ms INTEGER NOT NULL,
    created_by TEXT,
    source_request_id TEXT,
    provenance TEXT
);

CREATE TABLE questions (
    id TEXT PRIMARY KEY,
    session_id TEXT,
    run_id TEXT,
    questions TEXT NOT NULL,
    call_id TEXT,
    message_id TEXT,
    status TEXT NOT NULL,
    answers TEXT,
    requested_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    decided_at_ms INTEGER
);
CREATE INDEX questions_pending ON questions(status) WHERE status = 'pending';
