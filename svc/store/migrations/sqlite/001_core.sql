-- The event log: every event the engine publishes, in global seq order.
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL,
    type TEXT NOT NULL,
    occurred_at_ms INTEGER NOT NULL,
    session_id TEXT,
    run_id TEXT,
    topic TEXT,
    body BLOB NOT NULL
);
CREATE INDEX events_by_session ON events(session_id, seq) WHERE session_id IS NOT NULL;
CREATE INDEX events_by_run ON events(run_id, seq) WHERE run_id IS NOT NULL;
CREATE INDEX events_by_topic ON events(topic, seq) WHERE topic IS NOT NULL;

-- Small engine-wide values (install id, feature flags, cursors).
CREATE TABLE kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
