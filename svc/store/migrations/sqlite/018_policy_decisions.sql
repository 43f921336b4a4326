-- Policy decisions (allow, deny, approval_required) the engine made, for the incident
-- monitor's authority inventory and governance metrics (svc/incidents). Append-only:
-- rows are never changed; only the oldest beyond the retention cap are pruned.
CREATE TABLE policy_decisions (
    seq INTEGER PRIMARY KEY,
    decision_id TEXT NOT NULL UNIQUE,
    domain TEXT NOT NULL,
    effect TEXT NOT NULL,
    subject TEXT NOT NULL,
    actor_id TEXT,
    scope_id TEXT,
    code TEXT,
    reason TEXT,
    approval_id TEXT,
    tenant_id TEXT,
    workspace_id TEXT,
    created_at_ms INTEGER NOT NULL
);
CREATE INDEX policy_decisions_time ON policy_decisions(created_at_ms, seq);

CREATE TRIGGER policy_decisions_no_update BEFORE UPDATE ON policy_decisions
BEGIN
    SELECT RAISE(ABORT, 'policy decisions are append-only');
END;
