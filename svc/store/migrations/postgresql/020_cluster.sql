-- Replicas sharing this database, and the entity actors each one owns (svc/cluster).
-- PostgreSQL only: an SQLite store is one engine's alone, with nothing to share.
-- Times are the database's clock (milliseconds), so replicas' clocks never disagree.
CREATE TABLE cluster_replicas (
    replica_id TEXT PRIMARY KEY,
    url TEXT,                                 -- the replica's internal URL (forwarding)
    started_at_ms BIGINT NOT NULL,
    heartbeat_at_ms BIGINT NOT NULL
);
CREATE TABLE cluster_leases (
    kind TEXT NOT NULL,                       -- the entity prefix (session/, goal/, ...)
    entity_id TEXT NOT NULL,
    replica_id TEXT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    PRIMARY KEY (kind, entity_id)
);
CREATE INDEX cluster_leases_by_replica ON cluster_leases(replica_id);
