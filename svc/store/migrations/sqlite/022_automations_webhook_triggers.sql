-- Webhook triggers of automations v2 and the deliveries they received.
-- A trigger's signing secret is a secret: it is kept in its own column, read only
-- to verify a delivery's signature, and never part of a reply, an event or a log.
CREATE TABLE automations_v2_webhook_triggers (
    trigger_id TEXT PRIMARY KEY,
    automation_id TEXT NOT NULL,
    record TEXT NOT NULL,                      -- the trigger (JSON, without the secret)
    secret TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
CREATE INDEX automations_v2_webhook_triggers_by_automation
    ON automations_v2_webhook_triggers(automation_id);

CREATE TABLE automations_v2_webhook_deliveries (
    seq INTEGER PRIMARY KEY,
    delivery_id TEXT NOT NULL UNIQUE,
    trigger_id TEXT NOT NULL,
    dedupe_key TEXT,                           -- set on accepted deliveries: replays collide
    status TEXT NOT NULL,
    record TEXT NOT NULL,                      -- the delivery (JSON, no headers, no secret)
    received_at_ms INTEGER NOT NULL,
    UNIQUE (trigger_id, dedupe_key)
);
CREATE INDEX automations_v2_webhook_deliveries_by_trigger
    ON automations_v2_webhook_deliveries(trigger_id, seq);
