-- Memory: records in three tiers (global, project, session), an FTS5 index
-- ranked by bm25, tags, imported files, the audit trail and small state.

-- `seq` is the integer key the full-text index points at: a declared INTEGER
-- PRIMARY KEY survives VACUUM, an implicit rowid would not.
CREATE TABLE memory_records (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tier TEXT NOT NULL CHECK (tier IN ('global', 'project', 'session')),
    org_id TEXT NOT NULL DEFAULT 'local',
    workspace_id TEXT NOT NULL DEFAULT 'local',
    project_id TEXT,
    session_id TEXT,
    run_id TEXT,
    user_id TEXT NOT NULL DEFAULT 'default',
    kind TEXT NOT NULL DEFAULT 'note',
    source_type TEXT NOT NULL DEFAULT 'user',
    classification TEXT NOT NULL DEFAULT 'internal',
    content TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',          -- JSON array; also indexed for search
    metadata TEXT NOT NULL DEFAULT '{}',
    artifact_refs TEXT NOT NULL DEFAULT '[]',
    provenance TEXT NOT NULL DEFAULT '{}',
    visibility TEXT NOT NULL DEFAULT 'shared',
    demoted INTEGER NOT NULL DEFAULT 0,
    source_key TEXT,                          -- an imported file or a run's exchange
    chunk_index INTEGER,
    content_hash TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT '',           -- index tokens for tier, project, session (see svc/memory/query.py)
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
CREATE INDEX memory_records_session ON memory_records(session_id, tier) WHERE session_id IS NOT NULL;
CREATE INDEX memory_records_project ON memory_records(project_id, tier) WHERE project_id IS NOT NULL;
CREATE INDEX memory_records_recent ON memory_records(created_at_ms DESC, seq DESC);
CREATE UNIQUE INDEX memory_records_source ON memory_records(source_key, chunk_index) WHERE source_key IS NOT NULL;

CREATE TABLE memory_tags (
    tag TEXT NOT NULL,
    record_seq INTEGER NOT NULL REFERENCES memory_records(seq) ON DELETE CASCADE,
    PRIMARY KEY (tag, record_seq)
) WITHOUT ROWID;
CREATE INDEX memory_tags_by_record ON memory_tags(record_seq);

-- External-content FTS5 index over content, tags and scope; porter stemming
-- so "deploys" finds "deployment". The scope column holds tokens for the
-- record's tier, project and session, so a search confined to a scope is
-- answered by the index alone, best matches first. Kept in step with
-- memory_records by triggers.
CREATE VIRTUAL TABLE memory_fts USING fts5(
    content, tags, scope,
    content = 'memory_records', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
-- Per-term document counts, for the idf of each search term.
CREATE VIRTUAL TABLE memory_fts_vocab USING fts5vocab(memory_fts, 'row');

CREATE TRIGGER memory_records_fts_insert AFTER INSERT ON memory_records BEGIN
    INSERT INTO memory_fts(rowid, content, tags, scope) VALUES (new.seq, new.content, new.tags, new.scope);
END;
CREATE TRIGGER memory_records_fts_delete AFTER DELETE ON memory_records BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, content, tags, scope)
        VALUES ('delete', old.seq, old.content, old.tags, old.scope);
END;
CREATE TRIGGER memory_records_fts_update AFTER UPDATE OF content, tags, scope ON memory_records BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, content, tags, scope)
        VALUES ('delete', old.seq, old.content, old.tags, old.scope);
    INSERT INTO memory_fts(rowid, content, tags, scope) VALUES (new.seq, new.content, new.tags, new.scope);
END;

-- One row per imported file: unchanged files (same size and mtime, or same
-- content hash) are skipped on re-import; vanished ones can be synced away.
CREATE TABLE memory_import_files (
    source_key TEXT PRIMARY KEY,              -- import-<hash>/<relative path>
    import_key TEXT NOT NULL,                 -- import-<hash>
    relative_path TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    chunk_count INTEGER NOT NULL,
    imported_at_ms INTEGER NOT NULL
);
CREATE INDEX memory_import_files_by_import ON memory_import_files(import_key);

CREATE TABLE memory_audit (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    action TEXT NOT NULL,
    record_id TEXT,
    run_id TEXT,
    tier TEXT,
    actor TEXT,
    detail TEXT NOT NULL DEFAULT '{}',
    created_at_ms INTEGER NOT NULL
);
CREATE INDEX memory_audit_by_run ON memory_audit(run_id, seq) WHERE run_id IS NOT NULL;

CREATE TABLE memory_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
