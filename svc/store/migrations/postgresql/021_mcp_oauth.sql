-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/): integers are BIGINT (SQLite's are 64-bit).
-- OAuth credentials of MCP connectors (client registration and tokens), one row per connector.
CREATE TABLE mcp_oauth (
    server TEXT PRIMARY KEY,
    client_info TEXT,
    tokens TEXT,
    expires_at_ms BIGINT,
    updated_at_ms BIGINT NOT NULL
);
