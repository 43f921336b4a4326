-- PostgreSQL translation of the SQLite migration with the same number and name
-- (svc/store/migrations/sqlite/): integers are BIGINT (SQLite's are 64-bit).
-- Enterprise source objects, cross-tenant grants and policies; coder run artifacts
-- and memory candidates.

-- Per-object decisions about one ingested file of a binding (deleted, re-scoped);
-- parent = the binding id. Same layout as the other enterprise tables (013).
CREATE TABLE enterprise_source_objects (
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
CREATE INDEX enterprise_source_objects_parent ON enterprise_source_objects(org_id, workspace_id, deployment_id, parent_id);

-- Grants one tenant (the row's tenant, the issuer) leases to a principal of
-- another; parent = the audience tenant `org/workspace/deployment`, so the
-- audience finds its inbound grants by parent_id across issuers.
CREATE TABLE enterprise_cross_tenant_grants (
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
CREATE INDEX enterprise_cross_tenant_grants_parent ON enterprise_cross_tenant_grants(org_id, workspace_id, deployment_id, parent_id);
CREATE INDEX enterprise_cross_tenant_grants_audience ON enterprise_cross_tenant_grants(parent_id);

-- Tenant policies (data-class and tool rules with versions).
CREATE TABLE enterprise_policies (
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
CREATE INDEX enterprise_policies_parent ON enterprise_policies(org_id, workspace_id, deployment_id, parent_id);

-- Reports, summaries, drafts and submissions of coder runs.
CREATE TABLE coder_artifacts (
    id TEXT PRIMARY KEY,
    coder_run_id TEXT NOT NULL,
    artifact_type TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX coder_artifacts_run ON coder_artifacts(coder_run_id, created_at_ms);

-- Memory candidates a coder run proposed, until promoted into memory.
CREATE TABLE coder_memory_candidates (
    id TEXT PRIMARY KEY,
    coder_run_id TEXT NOT NULL,
    status TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
CREATE INDEX coder_memory_candidates_run ON coder_memory_candidates(coder_run_id, created_at_ms);
