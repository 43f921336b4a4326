"""Connector providers, connectors, credential references and source bindings.

Credentials are references only (a ``secret_ref`` naming where the secret
lives). A raw value anywhere in a connector, credential or binding body
(``credential_value`` and its synonyms, at any depth) is refused with
``ENTERPRISE_CONNECTOR_CREDENTIAL_VALUE_NOT_ALLOWED`` before anything is read
or stored, and the value is never echoed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from . import fields as f
from .errors import EnterpriseConflict, EnterpriseInvalid, EnterpriseNotFound
from .records import (
    Connector,
    CredentialRef,
    IngestionPolicy,
    ResourceRef,
    SecretRef,
    SourceBinding,
)

if TYPE_CHECKING:
    from .service import EnterpriseService
    from .tenant import Caller, TenantContext

RAW_VALUE_KEYS = frozenset({"credential_value", "secret_value", "raw_credential", "raw_secret"})
CONNECTOR_STATES = ("active", "paused", "revoked", "quarantined")
BINDING_STATES = ("enabled", "disabled", "quarantined")
CREDENTIAL_CLASSES = ("read_only", "read_write", "admin")
LOCAL_DIRECTORY = "local_directory"
GOOGLE_DRIVE = "google_drive"

PROVIDERS: tuple[dict[str, Any], ...] = (
    {
        "provider": GOOGLE_DRIVE,
        "display_name": "Google Drive",
        "status": "planned_read_only",
        "default_credential_class": "read_only",
        "supported_credential_classes": ["read_only"],
        "source_types": [GOOGLE_DRIVE],
        "source_root_mode": "admin_labeled",
        "acl_sync": "not_synced_v1",
        "live_ingestion": "disabled_until_fetcher_worker",
    },
    {
        "provider": LOCAL_DIRECTORY,
        "display_name": "Local directory",
        "status": "available",
        "default_credential_class": "read_only",
        "supported_credential_classes": ["read_only"],
        "source_types": [LOCAL_DIRECTORY],
        "source_root_mode": "operator_allowed_roots",
        "acl_sync": "not_applicable",
        "live_ingestion": "enabled",
        "configuration_key": "enterprise.local_directory.allowed_roots",
    },
)


def has_raw_value(value: Any) -> bool:
    """Whether a raw credential key with a non-null value appears anywhere in ``value``."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if key in RAW_VALUE_KEYS and inner is not None:
                return True
            if has_raw_value(inner):
                return True
    elif isinstance(value, list):
        return any(has_raw_value(v) for v in value)
    return False


def refuse_raw_values(body: Any) -> None:
    if has_raw_value(body):
        raise EnterpriseInvalid(
            "raw credential values must stay out of the runtime: attach a secret_ref instead",
            code="ENTERPRISE_CONNECTOR_CREDENTIAL_VALUE_NOT_ALLOWED",
        )


def providers(caller: Caller) -> dict[str, Any]:
    caller.require_admin()
    wire = [dict(p) for p in PROVIDERS]
    return {**caller.base(), "providers": wire, "count": len(wire)}


# ---------------------------------------------------------------------- connectors
async def list_connectors(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    found = await svc.connectors.all(caller.tenant.key)
    wire = [c.to_wire(caller.tenant) for c in found]
    return {**caller.base(), "connectors": wire, "count": len(wire)}


async def require_connector(svc: EnterpriseService, caller: Caller, connector_id: str) -> Connector:
    connector = await svc.connectors.get(caller.tenant.key, connector_id)
    if connector is None:
        raise EnterpriseNotFound(
            f"connector `{connector_id}` does not exist", code="ENTERPRISE_CONNECTOR_NOT_FOUND"
        )
    return connector


async def save_connector(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    refuse_raw_values(body)
    connector_id = f.enterprise_id(body.get("connector_id"), "connector_id")
    provider = f.enterprise_id(body.get("provider"), "provider")
    display_name = f.text(body, "display_name")
    state = f.choice(body, "state", CONNECTOR_STATES, "active")
    async with svc.turn(caller, "connector", connector_id):
        existing = await svc.connectors.get(caller.tenant.key, connector_id)
        now = svc.now_ms()
        connector = Connector(
            connector_id=connector_id,
            provider=provider,
            display_name=display_name,
            state=state,
            credential_refs=existing.credential_refs if existing else (),
            created_by=existing.created_by if existing else caller.created_by,
            created_at_ms=existing.created_at_ms if existing else now,
            updated_at_ms=now,
        )
        await svc.connectors.put(caller.tenant.key, connector)
    svc.publish(caller, "enterprise.cache.invalidated", {"connector_id": connector_id})
    wire = connector.to_wire(caller.tenant)
    return {
        **caller.base("enterprise connector saved"),
        "connector": wire,
        "connectors": [wire],
        "count": 1,
    }


async def patch_connector(
    svc: EnterpriseService, caller: Caller, connector_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    refuse_raw_values(body)
    connector_id = f.enterprise_id(connector_id, "connector_id")
    async with svc.turn(caller, "connector", connector_id):
        existing = await require_connector(svc, caller, connector_id)
        changed = attrs.evolve(
            existing,
            state=f.choice(body, "state", CONNECTOR_STATES, existing.state),
            display_name=f.text(body, "display_name", default=existing.display_name),
            updated_at_ms=svc.now_ms(),
        )
        await svc.connectors.put(caller.tenant.key, changed)
    svc.publish(caller, "enterprise.cache.invalidated", {"connector_id": connector_id})
    wire = changed.to_wire(caller.tenant)
    return {**caller.base("enterprise connector updated"), "connectors": [wire], "count": 1}


def parse_secret_ref(tenant: TenantContext, value: Any) -> SecretRef:
    if not isinstance(value, dict):
        raise EnterpriseInvalid(
            "`secret_ref` must be an object {org_id, workspace_id, provider, secret_id, name}",
            code="ENTERPRISE_SECRET_REF_INVALID",
            field="secret_ref",
        )
    org, workspace = value.get("org_id"), value.get("workspace_id")
    if org != tenant.org_id or workspace != tenant.workspace_id:
        raise EnterpriseInvalid(
            "the secret reference belongs to another tenant",
            code="ENTERPRISE_CONNECTOR_CREDENTIAL_TENANT_MISMATCH",
            field="secret_ref",
        )
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise EnterpriseInvalid(
            "`secret_ref.name` is required",
            code="ENTERPRISE_SECRET_NAME_INVALID",
            field="secret_ref.name",
        )
    return SecretRef(
        org_id=tenant.org_id,
        workspace_id=tenant.workspace_id,
        provider=f.enterprise_id(
            value.get("provider"), "secret_ref.provider", code="ENTERPRISE_SECRET_PROVIDER_INVALID"
        ),
        secret_id=f.external_id(
            value.get("secret_id"), "secret_ref.secret_id", code="ENTERPRISE_SECRET_ID_INVALID"
        ),
        name=name.strip(),
    )


def check_source_bound(tenant: TenantContext, value: dict[str, Any] | None) -> None:
    if value is None:
        return
    org, workspace = value.get("organization_id"), value.get("workspace_id")
    if (org is not None and org != tenant.org_id) or (
        workspace is not None and workspace != tenant.workspace_id
    ):
        raise EnterpriseInvalid(
            "the source-bound resource belongs to another tenant",
            code="ENTERPRISE_SOURCE_BINDING_RESOURCE_TENANT_MISMATCH",
            field="source_bound_resource",
        )


async def add_credential_ref(
    svc: EnterpriseService, caller: Caller, connector_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    refuse_raw_values(body)
    connector_id = f.enterprise_id(connector_id, "connector_id")
    credential_id = f.enterprise_id(body.get("credential_id"), "credential_id")
    credential_class = f.choice(body, "credential_class", CREDENTIAL_CLASSES, "read_only")
    secret_ref = parse_secret_ref(caller.tenant, body.get("secret_ref"))
    bound = f.mapping(body, "source_bound_resource")
    check_source_bound(caller.tenant, bound)
    async with svc.turn(caller, "connector", connector_id):
        connector = await require_connector(svc, caller, connector_id)
        if connector.credential(credential_id) is not None:
            raise EnterpriseConflict(
                f"credential `{credential_id}` already exists on `{connector_id}`",
                code="ENTERPRISE_CONNECTOR_CREDENTIAL_ALREADY_EXISTS",
            )
        if connector.provider == GOOGLE_DRIVE:
            if credential_class != "read_only":
                raise EnterpriseInvalid(
                    "Google Drive connectors take read-only credentials",
                    code="ENTERPRISE_GOOGLE_DRIVE_READ_ONLY_CREDENTIAL_REQUIRED",
                )
            if bound is None:
                raise EnterpriseInvalid(
                    "Google Drive credentials must be bound to a source resource",
                    code="ENTERPRISE_GOOGLE_DRIVE_SOURCE_BOUND_CREDENTIAL_REQUIRED",
                )
        now = svc.now_ms()
        credential = CredentialRef(
            credential_id=credential_id,
            credential_class=credential_class,
            secret_ref=secret_ref,
            source_bound_resource=bound,
            expires_at_ms=f.millis(body, "expires_at_ms"),
            created_at_ms=now,
        )
        changed = attrs.evolve(
            connector,
            credential_refs=(*connector.credential_refs, credential),
            updated_at_ms=now,
        )
        await svc.connectors.put(caller.tenant.key, changed)
    wire = changed.to_wire(caller.tenant)
    return {
        **caller.base("enterprise connector credential reference saved"),
        "credential_ref": credential.to_wire(),
        "connectors": [wire],
        "count": 1,
    }


async def rotate_credential_ref(
    svc: EnterpriseService,
    caller: Caller,
    connector_id: str,
    credential_id: str,
    body: Mapping[str, Any],
) -> dict[str, Any]:
    caller.require_admin()
    refuse_raw_values(body)
    connector_id = f.enterprise_id(connector_id, "connector_id")
    credential_id = f.enterprise_id(credential_id, "credential_id")
    secret_ref = parse_secret_ref(caller.tenant, body.get("secret_ref"))
    async with svc.turn(caller, "connector", connector_id):
        connector = await require_connector(svc, caller, connector_id)
        current = connector.credential(credential_id)
        if current is None:
            raise EnterpriseNotFound(
                f"credential `{credential_id}` does not exist on `{connector_id}`",
                code="ENTERPRISE_CONNECTOR_CREDENTIAL_NOT_FOUND",
            )
        now = svc.now_ms()
        rotated = attrs.evolve(
            current,
            secret_ref=secret_ref,
            expires_at_ms=f.millis(body, "expires_at_ms"),
            rotated_at_ms=now,
        )
        changed = attrs.evolve(
            connector,
            credential_refs=tuple(
                rotated if c.credential_id == credential_id else c
                for c in connector.credential_refs
            ),
            updated_at_ms=now,
        )
        await svc.connectors.put(caller.tenant.key, changed)
    svc.publish(caller, "enterprise.cache.invalidated", {"connector_id": connector_id})
    wire = changed.to_wire(caller.tenant)
    return {
        **caller.base("enterprise connector credential reference rotated"),
        "connectors": [wire],
        "count": 1,
    }


# ---------------------------------------------------------------------- source bindings
async def list_bindings(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    found = await svc.bindings.all(caller.tenant.key)
    wire = [b.to_wire(caller.tenant) for b in found]
    return {**caller.base(), "source_bindings": wire, "count": len(wire)}


async def require_binding(svc: EnterpriseService, caller: Caller, binding_id: str) -> SourceBinding:
    binding_id = f.enterprise_id(binding_id, "binding_id")
    binding = await svc.bindings.get(caller.tenant.key, binding_id)
    if binding is None:
        raise EnterpriseNotFound(
            f"source binding `{binding_id}` does not exist",
            code="ENTERPRISE_SOURCE_BINDING_NOT_FOUND",
        )
    return binding


def parse_resource_ref(tenant: TenantContext, value: Any, field: str) -> ResourceRef:
    if not isinstance(value, dict):
        raise EnterpriseInvalid(
            f"`{field}` must be an object", code="ENTERPRISE_RESOURCE_REF_INVALID", field=field
        )
    org = value.get("organization_id", tenant.org_id)
    workspace = value.get("workspace_id", tenant.workspace_id)
    if org != tenant.org_id or workspace != tenant.workspace_id:
        raise EnterpriseInvalid(
            f"`{field}` belongs to another tenant",
            code="ENTERPRISE_SOURCE_BINDING_RESOURCE_TENANT_MISMATCH",
            field=field,
        )
    from .governance import RESOURCE_KINDS

    # The spec writes the kind as `kind`, the reference as `resource_kind`: accept both.
    kind = value.get("resource_kind") or value.get("kind")
    if kind not in RESOURCE_KINDS:
        raise EnterpriseInvalid(
            f"`{field}.resource_kind` must be one of the resource kinds",
            code="ENTERPRISE_resource_kind_INVALID",
            field=f"{field}.resource_kind",
        )
    return ResourceRef(
        organization_id=tenant.org_id,
        workspace_id=tenant.workspace_id,
        resource_kind=kind,
        resource_id=f.external_id(value.get("resource_id"), "resource_id"),
        project_id=f.optional_id(value, "project_id"),
        parent_path=f.strings(value, "parent_path"),
        branch_id=f.text(value, "branch_id"),
        path_prefix=f.text(value, "path_prefix"),
    )


def parse_policy(value: Any, current: IngestionPolicy | None = None) -> IngestionPolicy:
    base = current or IngestionPolicy()
    if value is None:
        return base
    if not isinstance(value, dict):
        raise EnterpriseInvalid(
            "`ingestion_policy` must be an object",
            code="ENTERPRISE_INGESTION_POLICY_INVALID",
            field="ingestion_policy",
        )
    depth = value.get("max_depth", base.max_depth)
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise EnterpriseInvalid(
            "`ingestion_policy.max_depth` must be a non-negative integer",
            code="ENTERPRISE_INGESTION_POLICY_INVALID",
            field="ingestion_policy.max_depth",
        )
    return IngestionPolicy(
        allow_indexing=f.flag(value, "allow_indexing", base.allow_indexing),
        allow_prompt_context=f.flag(value, "allow_prompt_context", base.allow_prompt_context),
        require_review=f.flag(value, "require_review", base.require_review),
        max_depth=depth,
    )


def check_google_drive(binding: SourceBinding) -> None:
    if GOOGLE_DRIVE not in (binding.connector_id, binding.source_type):
        return
    if binding.source_type != GOOGLE_DRIVE:
        raise EnterpriseInvalid(
            "Google Drive bindings need source_type `google_drive`",
            code="ENTERPRISE_GOOGLE_DRIVE_SOURCE_TYPE_REQUIRED",
        )
    policy = binding.ingestion_policy
    if policy.allow_indexing and not policy.allow_prompt_context:
        raise EnterpriseInvalid(
            "Google Drive indexing requires the prompt-context policy",
            code="ENTERPRISE_GOOGLE_DRIVE_INDEXING_REQUIRES_PROMPT_CONTEXT_POLICY",
        )


def check_local_directory(svc: EnterpriseService, binding: SourceBinding) -> None:
    if binding.source_type == LOCAL_DIRECTORY:
        from .local_directory import resolve_root

        resolve_root(binding.native_source_id, svc.engine.settings)


async def save_binding(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    refuse_raw_values(body)
    binding_id = f.enterprise_id(body.get("binding_id"), "binding_id")
    draft = SourceBinding(
        binding_id=binding_id,
        connector_id=f.enterprise_id(body.get("connector_id"), "connector_id"),
        source_type=f.enterprise_id(body.get("source_type"), "source_type"),
        native_source_id=f.external_id(body.get("native_source_id"), "native_source_id"),
        source_root_label=f.text(body, "source_root_label"),
        resource_ref=parse_resource_ref(caller.tenant, body.get("resource_ref"), "resource_ref"),
        data_class=f.data_class(body.get("data_class")),
        state=f.choice(body, "state", BINDING_STATES, "enabled"),
        credential_ref_id=f.optional_id(body, "credential_ref_id"),
        ingestion_policy=parse_policy(body.get("ingestion_policy")),
    )
    async with svc.turn(caller, "binding", binding_id):
        existing = await svc.bindings.get(caller.tenant.key, binding_id)
        now = svc.now_ms()
        binding = attrs.evolve(
            draft,
            created_by=existing.created_by if existing else caller.created_by,
            created_at_ms=existing.created_at_ms if existing else now,
            updated_at_ms=now,
        )
        check_google_drive(binding)
        check_local_directory(svc, binding)
        await svc.bindings.put(caller.tenant.key, binding)
    svc.publish(caller, "enterprise.cache.invalidated", {"binding_id": binding_id})
    wire = binding.to_wire(caller.tenant)
    return {
        **caller.base("enterprise source binding saved"),
        "source_binding": wire,
        "source_bindings": [wire],
        "count": 1,
    }


async def patch_binding(
    svc: EnterpriseService, caller: Caller, binding_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    refuse_raw_values(body)
    async with svc.turn(caller, "binding", binding_id):
        existing = await require_binding(svc, caller, binding_id)
        changed = attrs.evolve(
            existing,
            state=f.choice(body, "state", BINDING_STATES, existing.state),
            source_root_label=f.text(body, "source_root_label", default=existing.source_root_label),
            credential_ref_id=f.optional_id(body, "credential_ref_id")
            if "credential_ref_id" in body
            else existing.credential_ref_id,
            ingestion_policy=parse_policy(body.get("ingestion_policy"), existing.ingestion_policy),
            updated_at_ms=svc.now_ms(),
        )
        check_google_drive(changed)
        await svc.bindings.put(caller.tenant.key, changed)
    svc.publish(caller, "enterprise.cache.invalidated", {"binding_id": changed.binding_id})
    wire = changed.to_wire(caller.tenant)
    return {
        **caller.base("enterprise source binding updated"),
        "source_bindings": [wire],
        "count": 1,
    }


__all__ = [
    "LOCAL_DIRECTORY",
    "PROVIDERS",
    "add_credential_ref",
    "has_raw_value",
    "list_bindings",
    "list_connectors",
    "patch_binding",
    "patch_connector",
    "providers",
    "refuse_raw_values",
    "require_binding",
    "require_connector",
    "rotate_credential_ref",
    "save_binding",
    "save_connector",
]
