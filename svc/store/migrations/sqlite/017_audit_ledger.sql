-- The append-only audit ledger shared by every domain (svc/audit). Each row
-- carries the hash of the row before it, so a removed or altered row breaks the
-- chain; the triggers refuse updates and deletes outright.
CREATE TABLE audit_ledger (
    seq INTEGER PRIMARY KEY,
    entry_id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    domain TEXT NOT NULL,
    actor TEXT,
    subject TEXT,
    payload TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX audit_ledger_type ON audit_ledger(domain, type, seq);

CREATE TRIGGER audit_ledger_no_update BEFORE UPDATE ON audit_ledger
BEGIN
    SELECT RAISE(ABORT, 'the audit ledger is append-only');
END;

CREATE TRIGGER audit_ledger_no_delete BEFORE DELETE ON audit_ledger
BEGIN
    SELECT RAISE(ABORT, 'the audit ledger is append-only');
END;
