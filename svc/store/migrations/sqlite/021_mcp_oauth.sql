-- OAuth credentials of MCP connectors (client registration and tokens), one row per connector.
CREATE TABLE mcp_oauth (
    server TEXT PRIMARY KEY,
    client_info TEXT,
    tokens TEXT,
    expires_at_ms INTEGER,
    updated_at_ms INTEGER NOT NULL
);
