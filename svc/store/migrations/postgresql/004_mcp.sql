-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/): integers are BIGINT (SQLite's are 64-bit),
-- REAL is DOUBLE PRECISION, BLOB is BYTEA, and an auto-assigned integer key is
-- an identity column.
-- MCP connectors: configuration, runtime state, and capability requests.
CREATE TABLE mcp_connectors (
    name TEXT PRIMARY KEY,
    transport TEXT NOT NULL,
    enabled BIGINT NOT NULL DEFAULT 1,
    headers TEXT NOT NULL DEFAULT '{}',       -- as configured; may hold ${env:NAME} references
    allowed_tools TEXT,                       -- JSON array, or NULL for "every tool"
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- What the connector actor learned; rewritten whole on every change.
CREATE TABLE mcp_connector_state (
    name TEXT PRIMARY KEY REFERENCES mcp_connectors(name) ON DELETE CASCADE,
    version BIGINT NOT NULL DEFAULT 0,       -- the actor's write counter: older writes never win
    connected BIGINT NOT NULL DEFAULT 0,
    last_error TEXT,
    last_auth_challenge TEXT,
    mcp_session_id TEXT,
    tool_cache TEXT NOT NULL DEFAULT '[]',
    tools_fetched_at_ms BIGINT,
    pending_auth_by_tool TEXT NOT NULL DEFAULT '{}',
    server_info TEXT,
    protocol_version TEXT,
    updated_at_ms BIGINT NOT NULL DEFAULT 0
);

-- mcp_request_capability: approval records (status pending until reviewed).
CREATE TABLE mcp_capability_requests (
    approval_id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    capability_key TEXT NOT NULL,
    status TEXT NOT NULL,
    record TEXT NOT NULL,
    expires_at_ms BIGINT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
CREATE INDEX mcp_capability_requests_by_agent ON mcp_capability_requests(agent_id, status, created_at_ms);
