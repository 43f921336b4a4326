"""``/enterprise``: onboarding, org units, grants, connectors, source bindings, ingestion."""

from ..records import enterprise as e
from ..registry import ANY_BODY, op, q_bool

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
    "status": op("Enterprise status of the caller's tenant", returns=e.STATUS),
    "readiness": op("Enterprise readiness checks", returns=e.READINESS),
    "preview": op("Preview an onboarding plan", body=ANY_BODY, returns=e.PREVIEW),
    "org_units": op("Org units", returns=e.ORG_UNITS),
    "save_org_unit": op("Create or save an org unit", body=ANY_BODY, returns=e.ORG_UNITS),
    "memberships": op("Org unit memberships", returns=e.MEMBERSHIPS),
    "save_membership": op("Add an org unit membership", body=ANY_BODY, returns=e.MEMBERSHIPS),
    "patch_membership": op("Change an org unit membership", body=ANY_BODY, returns=e.MEMBERSHIPS),
    "grants": op("Org unit access grants", returns=e.ACCESS_GRANTS),
    "effective_grants": op(
        "A member's effective access grants",
        returns=e.EFFECTIVE_GRANTS,
        query=("member_kind", "member_id"),
    ),
    "save_grant": op("Add an org unit access grant", body=ANY_BODY, returns=e.ACCESS_GRANTS),
    "patch_grant": op("Change an org unit access grant", body=ANY_BODY, returns=e.ACCESS_GRANTS),
    "connector_providers": op("Connector providers", returns=e.PROVIDERS),
    "connectors": op("Connectors", returns=e.CONNECTORS),
    "save_connector": op("Create or save a connector", body=ANY_BODY, returns=e.CONNECTORS),
    "patch_connector": op("Change a connector", body=ANY_BODY, returns=e.CONNECTORS),
    "add_credential_ref": op(
        "Add a credential reference to a connector", body=ANY_BODY, returns=e.CONNECTORS
    ),
    "rotate_credential_ref": op(
        "Rotate a connector's credential reference", body=ANY_BODY, returns=e.CONNECTORS
    ),
    "connector_impact": op("What depends on a connector", returns=e.CONNECTOR_IMPACT),
    "source_bindings": op("Source bindings", returns=e.SOURCE_BINDINGS),
    "save_binding": op("Create or save a source binding", body=ANY_BODY, returns=e.SOURCE_BINDINGS),
    "patch_binding": op("Change a source binding", body=ANY_BODY, returns=e.SOURCE_BINDINGS),
    "preflight": op("Check a source binding before importing", returns=e.PREFLIGHT),
    "import_binding": op(
        "Import a source binding (`wait=false` to answer before it finishes)",
        body=ANY_BODY,
        returns=e.INGESTION_STARTED,
        also=(202,),
        query=(q_bool("wait"),),
    ),
    "reindex_binding": op(
        "Reindex a source binding (`wait=false` to answer before it finishes)",
        body=ANY_BODY,
        returns=e.INGESTION_STARTED,
        also=(202,),
        query=(q_bool("wait"),),
    ),
    "source_objects": op("The ingested objects of a source binding", returns=e.SOURCE_OBJECTS),
    "reindex_source_object": op("Read one source object again", returns=e.SOURCE_OBJECT_CHANGED),
    "delete_source_object": op(
        "Remove one source object from memory and from later imports",
        returns=e.SOURCE_OBJECT_CHANGED,
    ),
    "scope_source_object": op(
        "Give one source object its own data class", body=ANY_BODY, returns=e.SOURCE_OBJECT_CHANGED
    ),
    "cross_tenant_grants": op(
        "Cross-tenant grants the tenant issued", returns=e.CROSS_TENANT_GRANTS
    ),
    "issue_cross_tenant_grant": op(
        "Issue a grant to a principal of another tenant",
        body=ANY_BODY,
        returns=e.CROSS_TENANT_GRANTS,
    ),
    "inbound_cross_tenant_grants": op(
        "Cross-tenant grants issued to the tenant",
        returns=e.CROSS_TENANT_GRANTS,
        query=(q_bool("include_inactive"),),
    ),
    "cross_tenant_revocations": op(
        "Revoked cross-tenant grants (tombstones)", returns=e.REVOCATIONS
    ),
    "cross_tenant_grant": op(
        "A cross-tenant grant the tenant issued", returns=e.CROSS_TENANT_GRANT_ONE
    ),
    "revoke_cross_tenant_grant": op(
        "Revoke a cross-tenant grant", body=ANY_BODY, returns=e.CROSS_TENANT_GRANTS
    ),
    "policies": op("Tenant policies", returns=e.POLICIES),
    "save_policy": op("Create or save a tenant policy", body=ANY_BODY, returns=e.POLICIES),
    "evaluate_policies": op(
        "What the tenant's policies decide for a data class or tool",
        body=ANY_BODY,
        returns=e.POLICY_DECISION,
    ),
    "policy": op("A tenant policy", returns=e.POLICY_ONE),
    "patch_policy": op("Change a tenant policy", body=ANY_BODY, returns=e.POLICIES),
    "ingestion_jobs": op("Ingestion jobs", returns=e.INGESTION_JOBS, query=("binding_id",)),
    "quarantines": op(
        "Quarantined ingestion items", returns=e.QUARANTINES, query=("state", "binding_id")
    ),
    "review_quarantine": op(
        "Review a quarantined item", body=ANY_BODY, returns=e.QUARANTINE_REVIEWED
    ),
    "memory_search": op(
        "Search the tenant's enterprise memory", body=ANY_BODY, returns=e.MEMORY_SEARCH
    ),
    "events": op(
        "Enterprise events of the caller's tenant (ingestion progress, reviews, saves)",
        stream=EVENTS,
        query=("job_id", "binding_id"),
    ),
}
