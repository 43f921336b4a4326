"""``/enterprise``: onboarding, org units, grants, connectors, source bindings, ingestion."""

from ..registry import ANY_BODY, OBJECT, op, q_bool

EVENTS = (
    "enterprise.ingestion.started",
    "enterprise.ingestion.progress",
    "enterprise.ingestion.completed",
    "enterprise.ingestion.failed",
    "enterprise.quarantine.reviewed",
    "enterprise.source_object.reindex",
    "enterprise.cross_tenant_grant.issued",
    "enterprise.cross_tenant_grant.revoked",
    "enterprise.policy.saved",
    "enterprise.source_object.delete",
    "enterprise.source_object.scope",
    "enterprise.org_unit.saved",
    "enterprise.membership.saved",
    "enterprise.access_grant.saved",
)

OPERATIONS = {
    "status": op("Enterprise status of the caller's tenant", returns=OBJECT),
    "readiness": op("Enterprise readiness checks", returns=OBJECT),
    "preview": op("Preview an onboarding plan", body=ANY_BODY, returns=OBJECT),
    "org_units": op("Org units", returns=OBJECT),
    "save_org_unit": op("Create or save an org unit", body=ANY_BODY, returns=OBJECT),
    "memberships": op("Org unit memberships", returns=OBJECT),
    "save_membership": op("Add an org unit membership", body=ANY_BODY, returns=OBJECT),
    "patch_membership": op("Change an org unit membership", body=ANY_BODY, returns=OBJECT),
    "grants": op("Org unit access grants", returns=OBJECT),
    "effective_grants": op(
        "A member's effective access grants",
        returns=OBJECT,
        query=("member_kind", "member_id"),
    ),
    "save_grant": op("Add an org unit access grant", body=ANY_BODY, returns=OBJECT),
    "patch_grant": op("Change an org unit access grant", body=ANY_BODY, returns=OBJECT),
    "connector_providers": op("Connector providers", returns=OBJECT),
    "connectors": op("Connectors", returns=OBJECT),
    "save_connector": op("Create or save a connector", body=ANY_BODY, returns=OBJECT),
    "patch_connector": op("Change a connector", body=ANY_BODY, returns=OBJECT),
    "add_credential_ref": op(
        "Add a credential reference to a connector", body=ANY_BODY, returns=OBJECT
    ),
    "rotate_credential_ref": op(
        "Rotate a connector's credential reference", body=ANY_BODY, returns=OBJECT
    ),
    "connector_impact": op("What depends on a connector", returns=OBJECT),
    "source_bindings": op("Source bindings", returns=OBJECT),
    "save_binding": op("Create or save a source binding", body=ANY_BODY, returns=OBJECT),
    "patch_binding": op("Change a source binding", body=ANY_BODY, returns=OBJECT),
    "preflight": op("Check a source binding before importing", returns=OBJECT),
    "import_binding": op(
        "Import a source binding (`wait=false` to answer before it finishes)",
        body=ANY_BODY,
        returns=OBJECT,
        query=(q_bool("wait"),),
    ),
    "reindex_binding": op(
        "Reindex a source binding (`wait=false` to answer before it finishes)",
        body=ANY_BODY,
        returns=OBJECT,
        query=(q_bool("wait"),),
    ),
    "source_objects": op("The ingested objects of a source binding", returns=OBJECT),
    "reindex_source_object": op("Read one source object again", returns=OBJECT),
    "delete_source_object": op(
        "Remove one source object from memory and from later imports", returns=OBJECT
    ),
    "scope_source_object": op(
        "Give one source object its own data class", body=ANY_BODY, returns=OBJECT
    ),
    "cross_tenant_grants": op("Cross-tenant grants the tenant issued", returns=OBJECT),
    "issue_cross_tenant_grant": op(
        "Issue a grant to a principal of another tenant", body=ANY_BODY, returns=OBJECT
    ),
    "inbound_cross_tenant_grants": op(
        "Cross-tenant grants issued to the tenant",
        returns=OBJECT,
        query=(q_bool("include_inactive"),),
    ),
    "cross_tenant_revocations": op("Revoked cross-tenant grants (tombstones)", returns=OBJECT),
    "cross_tenant_grant": op("A cross-tenant grant the tenant issued", returns=OBJECT),
    "revoke_cross_tenant_grant": op("Revoke a cross-tenant grant", body=ANY_BODY, returns=OBJECT),
    "policies": op("Tenant policies", returns=OBJECT),
    "save_policy": op("Create or save a tenant policy", body=ANY_BODY, returns=OBJECT),
    "evaluate_policies": op(
        "What the tenant's policies decide for a data class or tool", body=ANY_BODY, returns=OBJECT
    ),
    "policy": op("A tenant policy", returns=OBJECT),
    "patch_policy": op("Change a tenant policy", body=ANY_BODY, returns=OBJECT),
    "ingestion_jobs": op("Ingestion jobs", returns=OBJECT, query=("binding_id",)),
    "quarantines": op("Quarantined ingestion items", returns=OBJECT, query=("state", "binding_id")),
    "review_quarantine": op("Review a quarantined item", body=ANY_BODY, returns=OBJECT),
    "memory_search": op("Search the tenant's enterprise memory", body=ANY_BODY, returns=OBJECT),
    "events": op(
        "Enterprise events of the caller's tenant (ingestion progress, reviews, saves)",
        stream=EVENTS,
        query=("job_id", "binding_id"),
    ),
}
