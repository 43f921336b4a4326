-- Channels: which session each platform conversation talks to, and small
-- per-channel listener state (the Telegram update offset).

CREATE TABLE channel_conversations (
    channel TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    PRIMARY KEY (channel, conversation_id)
);

CREATE INDEX channel_conversations_by_session ON channel_conversations (session_id);

CREATE TABLE channel_state (
    channel TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    PRIMARY KEY (channel, key)
);
