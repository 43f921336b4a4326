-- Claims on routine runs (svc/automations/routines/claims.py): replicas sharing a
-- PostgreSQL store claim queued routine runs, one run of a routine at a time
-- across all replicas; a claim not renewed (a dead replica) expires and is taken
-- over. An SQLite store is one engine's alone and never claims (the columns stay
-- NULL), but the claiming statement works on both (a conditional UPDATE ... RETURNING).
ALTER TABLE automations_routine_runs ADD COLUMN claimed_by TEXT;
ALTER TABLE automations_routine_runs ADD COLUMN claim_expires_at_ms INTEGER;
