-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/): integers are BIGINT (SQLite's are 64-bit).
-- Enterprise onboarding: tenant-scoped records, one table per aggregate.
-- Every table has the same layout: the tenant (deployment '' when none), the
-- record's id, its parent (the aggregate it hangs off, for listings), its state
-- (for counts) and the record itself as JSON. Portable DDL apart from the types.

-- Org units, keyed `<taxonomy>/<unit>`.
CREATE TABLE enterprise_org_units (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    parent_id TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (org_id, workspace_id, deployment_id, id)
);
CREATE INDEX enterprise_org_units_parent ON enterprise_org_units(org_id, workspace_id, deployment_id, parent_id);

-- Org unit memberships; parent = the unit's key.
CREATE TABLE enterprise_memberships (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    parent_id TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (org_id, workspace_id, deployment_id, id)
);
CREATE INDEX enterprise_memberships_parent ON enterprise_memberships(org_id, workspace_id, deployment_id, parent_id);

-- Org unit access grants; parent = the unit's key.
CREATE TABLE enterprise_access_grants (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    parent_id TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (org_id, workspace_id, deployment_id, id)
);
CREATE INDEX enterprise_access_grants_parent ON enterprise_access_grants(org_id, workspace_id, deployment_id, parent_id);

-- Connectors with their credential references (never values).
CREATE TABLE enterprise_connectors (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    parent_id TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (org_id, workspace_id, deployment_id, id)
);
CREATE INDEX enterprise_connectors_parent ON enterprise_connectors(org_id, workspace_id, deployment_id, parent_id);

-- Source bindings; parent = the connector id.
CREATE TABLE enterprise_source_bindings (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    parent_id TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (org_id, workspace_id, deployment_id, id)
);
CREATE INDEX enterprise_source_bindings_parent ON enterprise_source_bindings(org_id, workspace_id, deployment_id, parent_id);

-- Ingestion quarantines awaiting (or past) review; parent = the binding id.
CREATE TABLE enterprise_quarantines (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    parent_id TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (org_id, workspace_id, deployment_id, id)
);
CREATE INDEX enterprise_quarantines_parent ON enterprise_quarantines(org_id, workspace_id, deployment_id, parent_id);

-- Preflights, imports and reindexes of a binding; parent = the binding id.
CREATE TABLE enterprise_ingestion_jobs (
    org_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    parent_id TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (org_id, workspace_id, deployment_id, id)
);
CREATE INDEX enterprise_ingestion_jobs_parent ON enterprise_ingestion_jobs(org_id, workspace_id, deployment_id, parent_id);
