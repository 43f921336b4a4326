-- Client-compatibility extras: the key/value resource store, installed packs,
-- and optimization campaigns with their experiments.

CREATE TABLE resources (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    rev INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    updated_by TEXT,
    expires_at_ms INTEGER
);

CREATE TABLE packs_installed (
    pack_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    manifest TEXT NOT NULL,
    source TEXT NOT NULL,
    install_path TEXT NOT NULL,
    installed_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);

CREATE TABLE optimization_campaigns (
    campaign_id TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);

CREATE TABLE optimization_experiments (
    campaign_id TEXT NOT NULL,
    experiment_id TEXT NOT NULL,
    record TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, experiment_id)
);
