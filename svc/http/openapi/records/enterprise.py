"""Records of the enterprise area (``/enterprise``).

Every answer but ``status`` embeds the caller's base (tenant, principal, bridge state,
status, message) beside its records. Records leave out absent optional fields and empty
lists, so only the fields always present are required.
"""

from __future__ import annotations

from typing import Any

from ..registry import Record
from .common import ARR, BOOL, INT, NULL_INT, NULL_STR, OBJ, STR, STRS, array_of, obj, of

TENANT = Record(
    "TenantContext",
    obj(
        {"org_id": STR, "workspace_id": STR, "source": STR}, {"deployment_id": STR, "actor_id": STR}
    ),
)
_BASE: dict[str, Any] = {
    "tenant_context": of(TENANT),
    "request_principal": obj({"source": STR}, {"actor_id": STR}),
    "bridge_state": STR,
    "status": STR,
    "message": STR,
}
_REF = obj({"kind": STR, "id": STR})


def answer(name: str, fields: dict[str, Any], optional: dict[str, Any] | None = None) -> Record:
    """An enterprise answer: the caller's base and ``fields``."""
    return Record(name, obj({**_BASE, **fields}, optional))


def listing(name: str, key: str, item: Record, single: str | None = None) -> Record:
    """``{base, <key>: [item], count}``, and the saved record under ``single`` when given."""
    return answer(name, {key: array_of(item), "count": INT}, {single: of(item)} if single else None)


ORG_UNIT = Record(
    "EnterpriseOrgUnit",
    obj(
        {
            "unit_id": STR,
            "tenant_context": of(TENANT),
            "taxonomy_id": STR,
            "display_name": STR,
            "kind": STR,
            "state": STR,
            "created_by": OBJ,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {"parent_unit_id": STR, "description": STR, "labels": STRS},
    ),
)
MEMBERSHIP = Record(
    "EnterpriseMembership",
    obj(
        {
            "membership_id": STR,
            "tenant_context": of(TENANT),
            "unit": _REF,
            "member": _REF,
            "source": STR,
            "state": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {"expires_at_ms": INT},
    ),
)
ACCESS_GRANT = Record(
    "EnterpriseAccessGrant",
    obj(
        {
            "grant_id": STR,
            "tenant_context": of(TENANT),
            "unit": _REF,
            "resource": obj(
                {
                    "organization_id": STR,
                    "workspace_id": STR,
                    "resource_kind": STR,
                    "resource_id": STR,
                },
                {"project_id": STR, "path_prefix": STR},
            ),
            "effect": STR,
            "state": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {
            "permissions": STRS,
            "data_classes": STRS,
            "tool_patterns": STRS,
            "expires_at_ms": INT,
            "member": _REF,
        },
    ),
)
CREDENTIAL_REF = Record(
    "EnterpriseCredentialRef",
    obj(
        {"credential_id": STR, "credential_class": STR, "secret_ref": OBJ, "created_at_ms": INT},
        {"source_bound_resource": OBJ, "expires_at_ms": INT, "rotated_at_ms": INT},
    ),
)
CONNECTOR = Record(
    "EnterpriseConnector",
    obj(
        {
            "connector_id": STR,
            "tenant_context": of(TENANT),
            "provider": STR,
            "state": STR,
            "created_by": OBJ,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {"display_name": STR, "credential_refs": array_of(CREDENTIAL_REF)},
    ),
)
SOURCE_BINDING = Record(
    "EnterpriseSourceBinding",
    obj(
        {
            "binding_id": STR,
            "tenant_context": of(TENANT),
            "connector_id": STR,
            "source_type": STR,
            "native_source_id": STR,
            "resource_ref": obj(
                {
                    "organization_id": STR,
                    "workspace_id": STR,
                    "resource_kind": STR,
                    "resource_id": STR,
                }
            ),
            "data_class": STR,
            "state": STR,
            "ingestion_policy": OBJ,
            "created_by": OBJ,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {"source_root_label": STR, "credential_ref_id": STR},
    ),
)
QUARANTINE = Record(
    "EnterpriseQuarantine",
    obj(
        {
            "quarantine_id": STR,
            "tenant_context": of(TENANT),
            "binding_id": STR,
            "connector_id": STR,
            "path": STR,
            "content_hash": STR,
            "size": INT,
            "data_class": STR,
            "state": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {
            "reasons": STRS,
            "detectors": STRS,
            "disposition": STR,
            "reviewed_by": STR,
            "reviewed_at_ms": INT,
            "notes": STR,
        },
    ),
)
INGESTION_JOB = Record(
    "EnterpriseIngestionJob",
    obj(
        {
            "job_id": STR,
            "tenant_context": of(TENANT),
            "binding_id": STR,
            "connector_id": STR,
            "kind": STR,
            "state": STR,
            "counts": OBJ,
            "started_at_ms": INT,
        },
        {"error": STR, "finished_at_ms": INT},
    ),
)
SOURCE_OBJECT = Record(
    "EnterpriseSourceObject",
    obj(
        {
            "object_id": STR,
            "binding_id": STR,
            "connector_id": STR,
            "tenant_context": of(TENANT),
            "path": STR,
            "content_hash": NULL_STR,
            "size": NULL_INT,
            "indexed": BOOL,
            "state": STR,
            "data_class": STR,
            "updated_at_ms": NULL_INT,
        }
    ),
)
_PARTY = obj({"org_id": STR, "workspace_id": STR}, {"deployment_id": STR})
CROSS_TENANT_GRANT = Record(
    "EnterpriseCrossTenantGrant",
    obj(
        {
            "grant_id": STR,
            "version": STR,
            "issuer": _PARTY,
            "audience": _PARTY,
            "state": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {
            "subject": {},
            "resource": {},
            "permissions": STRS,
            "data_classes": STRS,
            "tool_patterns": STRS,
            "issued_at_ms": INT,
            "not_before_ms": INT,
            "expires_at_ms": INT,
            "issued_by": {},
            "reason": STR,
            "claims_hash": STR,
            "revocation": OBJ,
        },
    ),
)
POLICY = Record(
    "EnterprisePolicy",
    obj(
        {
            "policy_id": STR,
            "tenant_context": of(TENANT),
            "display_name": STR,
            "kind": STR,
            "effect": STR,
            "rules": OBJ,
            "state": STR,
            "version": INT,
            "created_by": OBJ,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        },
        {"description": STR},
    ),
)

STATUS = Record(
    "EnterpriseStatus",
    obj(
        {
            "mode": STR,
            "bridge_state": STR,
            "capabilities": STRS,
            "tenant_context": of(TENANT),
            "request_principal": OBJ,
            "public_build": BOOL,
            "contract_version": STR,
            "notes": STRS,
        }
    ),
)
READINESS = answer("EnterpriseReadiness", {"overall_status": STR, "counts": OBJ, "checks": ARR})
PREVIEW = answer(
    "EnterprisePreview",
    {
        "valid": BOOL,
        "operations": ARR,
        "warnings": ARR,
        "blocking_errors": ARR,
        "hosted_prerequisites": ARR,
        "required_human_actions": ARR,
        "private_control_plane_prerequisites": ARR,
    },
)
ORG_UNITS = listing("EnterpriseOrgUnits", "org_units", ORG_UNIT, "org_unit")
MEMBERSHIPS = listing("EnterpriseMemberships", "memberships", MEMBERSHIP)
ACCESS_GRANTS = listing("EnterpriseAccessGrants", "access_grants", ACCESS_GRANT)
EFFECTIVE_GRANTS = listing("EnterpriseEffectiveGrants", "grants", ACCESS_GRANT)
PROVIDERS = answer("EnterpriseConnectorProviders", {"providers": ARR, "count": INT})
CONNECTORS = answer(
    "EnterpriseConnectors",
    {"connectors": array_of(CONNECTOR), "count": INT},
    {"connector": of(CONNECTOR), "credential_ref": of(CREDENTIAL_REF)},
)
CONNECTOR_IMPACT = answer(
    "EnterpriseConnectorImpact",
    {
        "connector": of(CONNECTOR),
        "affected_bindings": ARR,
        "affected_source_objects": {},
        "affected_ingestion_jobs": ARR,
        "affected_quarantines": ARR,
        "data_classes": ARR,
        "cache_invalidation_required": BOOL,
        "compromise_window": {},
        "recommended_actions": ARR,
    },
)
SOURCE_BINDINGS = listing(
    "EnterpriseSourceBindings", "source_bindings", SOURCE_BINDING, "source_binding"
)
PREFLIGHT = answer(
    "EnterprisePreflight",
    {
        "binding_id": STR,
        "ready": BOOL,
        "root": {},
        "memory_target": {},
        "data_classes": {},
        "counts": OBJ,
        "items": ARR,
        "refusals": ARR,
    },
)
INGESTION_STARTED = answer("EnterpriseIngestionStarted", {"job": of(INGESTION_JOB)})
INGESTION_JOBS = listing("EnterpriseIngestionJobs", "ingestion_jobs", INGESTION_JOB)
QUARANTINES = listing("EnterpriseQuarantines", "quarantines", QUARANTINE)
QUARANTINE_REVIEWED = answer(
    "EnterpriseQuarantineReviewed", {"quarantine": of(QUARANTINE)}, {"job": of(INGESTION_JOB)}
)
SOURCE_OBJECTS = listing("EnterpriseSourceObjects", "source_objects", SOURCE_OBJECT)
SOURCE_OBJECT_CHANGED = answer(
    "EnterpriseSourceObjectChanged", {"source_object": of(SOURCE_OBJECT), "outcome": {}}
)
CROSS_TENANT_GRANTS = listing(
    "EnterpriseCrossTenantGrants", "cross_tenant_grants", CROSS_TENANT_GRANT
)
CROSS_TENANT_GRANT_ONE = answer(
    "EnterpriseCrossTenantGrantOne", {"cross_tenant_grant": of(CROSS_TENANT_GRANT)}
)
REVOCATIONS = answer("EnterpriseRevocations", {"revocations": ARR, "count": INT})
POLICIES = listing("EnterprisePolicies", "policies", POLICY)
POLICY_ONE = answer("EnterprisePolicyOne", {"policy": of(POLICY)})
POLICY_DECISION = answer(
    "EnterprisePolicyDecision",
    {"decision": {}, "data_class": {}, "tool": {}, "matched_policies": ARR},
)
MEMORY_SEARCH = answer(
    "EnterpriseMemorySearch",
    {
        "member": {},
        "allowed_data_classes": ARR,
        "policy_denied_data_classes": ARR,
        "results": ARR,
        "count": INT,
        "query": {},
    },
)

RECORDS = (
    TENANT,
    ORG_UNIT,
    MEMBERSHIP,
    ACCESS_GRANT,
    CREDENTIAL_REF,
    CONNECTOR,
    SOURCE_BINDING,
    QUARANTINE,
    INGESTION_JOB,
    SOURCE_OBJECT,
    CROSS_TENANT_GRANT,
    POLICY,
    STATUS,
    READINESS,
    PREVIEW,
    ORG_UNITS,
    MEMBERSHIPS,
    ACCESS_GRANTS,
    EFFECTIVE_GRANTS,
    PROVIDERS,
    CONNECTORS,
    CONNECTOR_IMPACT,
    SOURCE_BINDINGS,
    PREFLIGHT,
    INGESTION_STARTED,
    INGESTION_JOBS,
    QUARANTINES,
    QUARANTINE_REVIEWED,
    SOURCE_OBJECTS,
    SOURCE_OBJECT_CHANGED,
    CROSS_TENANT_GRANTS,
    CROSS_TENANT_GRANT_ONE,
    REVOCATIONS,
    POLICIES,
    POLICY_ONE,
    POLICY_DECISION,
    MEMORY_SEARCH,
)
