-- Claims on automation v2 runs (svc/automations/v2/claims.py): replicas sharing
-- a PostgreSQL store claim queued runs, so each runs on exactly one replica and
-- a dead replica's claim expires and is taken over. An SQLite store is one
-- engine's alone and never claims (the columns stay NULL), but the claiming
-- statement works on both (a conditional UPDATE ... RETURNING here).
ALTER TABLE automations_v2_runs ADD COLUMN claimed_by TEXT;
ALTER TABLE automations_v2_runs ADD COLUMN claim_expires_at_ms INTEGER;
