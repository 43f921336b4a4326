-- PostgreSQL twin of the SQLite migration with the same number and name: claims
-- on routine runs (svc/automations/routines/claims.py). Replicas claim queued
-- routine runs with SELECT ... FOR UPDATE SKIP LOCKED, one run of a routine at a
-- time; a claim not renewed (a dead replica) expires and is taken over.
ALTER TABLE automations_routine_runs ADD COLUMN claimed_by TEXT;
ALTER TABLE automations_routine_runs ADD COLUMN claim_expires_at_ms BIGINT;
