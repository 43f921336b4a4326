-- PostgreSQL twin of the SQLite migration with the same number and name: claims
-- on automation v2 runs (svc/automations/v2/claims.py). Replicas claim queued
-- runs with SELECT ... FOR UPDATE SKIP LOCKED, so each runs on exactly one
-- replica; a claim not renewed (a dead replica) expires and is taken over.
ALTER TABLE automations_v2_runs ADD COLUMN claimed_by TEXT;
ALTER TABLE automations_v2_runs ADD COLUMN claim_expires_at_ms BIGINT;
