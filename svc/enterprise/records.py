"""The enterprise records: org units, memberships, grants, connectors, source bindings,
quarantines and ingestion jobs.

Each record knows its ``key`` (its id within the tenant), its ``parent`` (what
listings group it under) and its ``state`` (what counts count); the tenant is
held by the store row, not the record, and added to the wire shape.
"""

from __future__ import annotations

from typing import Any

import attrs

from .tenant import TenantContext


def _compact(wire: dict[str, Any]) -> dict[str, Any]:
    """Drop absent optional fields and empty lists (the reference omits them)."""
    return {k: v for k, v in wire.items() if v is not None and v != [] and v != ()}


@attrs.frozen(kw_only=True)
class OrgUnit:
    unit_id: str
    taxonomy_id: str = "organization_unit"
    display_name: str
    kind: str = "unspecified"
    parent_unit_id: str | None = None
    state: str = "active"
    description: str | None = None
    labels: tuple[str, ...] = ()
    created_by: dict[str, str] = attrs.field(factory=dict)
    created_at_ms: int = 0
    updated_at_ms: int = 0

    @property
    def key(self) -> str:
        return f"{self.taxonomy_id}/{self.unit_id}"

    parent = ""

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        return _compact(
            {
                "unit_id": self.unit_id,
                "tenant_context": tenant.to_wire(),
                "taxonomy_id": self.taxonomy_id,
                "display_name": self.display_name,
                "kind": self.kind,
                "parent_unit_id": self.parent_unit_id,
                "state": self.state,
                "description": self.description,
                "labels": list(self.labels),
                "created_by": dict(self.created_by),
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
            }
        )


@attrs.frozen(kw_only=True)
class Membership:
    membership_id: str
    unit_key: str
    """``<taxonomy>/<unit>``."""
    member_kind: str = "human_user"
    member_id: str
    source: str = "direct"
    state: str = "active"
    created_at_ms: int = 0
    updated_at_ms: int = 0
    expires_at_ms: int | None = None

    @property
    def key(self) -> str:
        return self.membership_id

    @property
    def parent(self) -> str:
        return self.unit_key

    def live(self, now_ms: int) -> bool:
        return self.state == "active" and (
            self.expires_at_ms is None or self.expires_at_ms > now_ms
        )

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        return _compact(
            {
                "membership_id": self.membership_id,
                "tenant_context": tenant.to_wire(),
                "unit": {"kind": "organization_unit", "id": self.unit_key},
                "member": {"kind": self.member_kind, "id": self.member_id},
                "source": self.source,
                "state": self.state,
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
                "expires_at_ms": self.expires_at_ms,
            }
        )


@attrs.frozen(kw_only=True)
class GrantResource:
    resource_kind: str
    resource_id: str
    project_id: str | None = None
    path_prefix: str | None = None


@attrs.frozen(kw_only=True)
class AccessGrant:
    grant_id: str
    unit_key: str
    resource: GrantResource
    effect: str = "allow"
    permissions: tuple[str, ...] = ()
    data_classes: tuple[str, ...] = ()
    """Empty: every data class (a broad grant)."""
    tool_patterns: tuple[str, ...] = ()
    state: str = "active"
    created_at_ms: int = 0
    updated_at_ms: int = 0
    expires_at_ms: int | None = None

    @property
    def key(self) -> str:
        return self.grant_id

    @property
    def parent(self) -> str:
        return self.unit_key

    def live(self, now_ms: int) -> bool:
        return self.state == "active" and (
            self.expires_at_ms is None or self.expires_at_ms > now_ms
        )

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        resource = _compact(
            {
                "organization_id": tenant.org_id,
                "workspace_id": tenant.workspace_id,
                "project_id": self.resource.project_id,
                "resource_kind": self.resource.resource_kind,
                "resource_id": self.resource.resource_id,
                "path_prefix": self.resource.path_prefix,
            }
        )
        return _compact(
            {
                "grant_id": self.grant_id,
                "tenant_context": tenant.to_wire(),
                "unit": {"kind": "organization_unit", "id": self.unit_key},
                "resource": resource,
                "effect": self.effect,
                "permissions": list(self.permissions),
                "data_classes": list(self.data_classes),
                "tool_patterns": list(self.tool_patterns),
                "state": self.state,
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
                "expires_at_ms": self.expires_at_ms,
            }
        )


@attrs.frozen(kw_only=True)
class SecretRef:
    org_id: str
    workspace_id: str
    provider: str
    secret_id: str
    name: str


@attrs.frozen(kw_only=True)
class CredentialRef:
    credential_id: str
    credential_class: str = "read_only"
    secret_ref: SecretRef
    source_bound_resource: dict[str, Any] | None = None
    expires_at_ms: int | None = None
    created_at_ms: int = 0
    rotated_at_ms: int | None = None

    def to_wire(self) -> dict[str, Any]:
        return _compact(
            {
                "credential_id": self.credential_id,
                "credential_class": self.credential_class,
                "secret_ref": attrs.asdict(self.secret_ref),
                "source_bound_resource": self.source_bound_resource,
                "expires_at_ms": self.expires_at_ms,
                "created_at_ms": self.created_at_ms,
                "rotated_at_ms": self.rotated_at_ms,
            }
        )


@attrs.frozen(kw_only=True)
class Connector:
    connector_id: str
    provider: str
    display_name: str | None = None
    state: str = "active"
    credential_refs: tuple[CredentialRef, ...] = ()
    created_by: dict[str, str] = attrs.field(factory=dict)
    created_at_ms: int = 0
    updated_at_ms: int = 0

    @property
    def key(self) -> str:
        return self.connector_id

    parent = ""

    def credential(self, credential_id: str) -> CredentialRef | None:
        return next((c for c in self.credential_refs if c.credential_id == credential_id), None)

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        return _compact(
            {
                "connector_id": self.connector_id,
                "tenant_context": tenant.to_wire(),
                "provider": self.provider,
                "display_name": self.display_name,
                "state": self.state,
                "credential_refs": [c.to_wire() for c in self.credential_refs],
                "created_by": dict(self.created_by),
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
            }
        )


@attrs.frozen(kw_only=True)
class ResourceRef:
    organization_id: str
    workspace_id: str
    resource_kind: str
    resource_id: str
    project_id: str | None = None
    parent_path: tuple[str, ...] = ()
    branch_id: str | None = None
    path_prefix: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return _compact(attrs.asdict(self))


@attrs.frozen(kw_only=True)
class IngestionPolicy:
    allow_indexing: bool = True
    allow_prompt_context: bool = True
    require_review: bool = False
    max_depth: int | None = None

    def to_wire(self) -> dict[str, Any]:
        return _compact(attrs.asdict(self))


@attrs.frozen(kw_only=True)
class SourceBinding:
    binding_id: str
    connector_id: str
    source_type: str
    native_source_id: str
    source_root_label: str | None = None
    resource_ref: ResourceRef
    data_class: str
    state: str = "enabled"
    credential_ref_id: str | None = None
    ingestion_policy: IngestionPolicy = IngestionPolicy()
    created_by: dict[str, str] = attrs.field(factory=dict)
    created_at_ms: int = 0
    updated_at_ms: int = 0

    @property
    def key(self) -> str:
        return self.binding_id

    @property
    def parent(self) -> str:
        return self.connector_id

    @property
    def project_id(self) -> str:
        """The memory project an import fills: the resource's project, else the resource."""
        return self.resource_ref.project_id or self.resource_ref.resource_id

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        return _compact(
            {
                "binding_id": self.binding_id,
                "tenant_context": tenant.to_wire(),
                "connector_id": self.connector_id,
                "source_type": self.source_type,
                "native_source_id": self.native_source_id,
                "source_root_label": self.source_root_label,
                "resource_ref": self.resource_ref.to_wire(),
                "data_class": self.data_class,
                "state": self.state,
                "credential_ref_id": self.credential_ref_id,
                "ingestion_policy": self.ingestion_policy.to_wire(),
                "created_by": dict(self.created_by),
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
            }
        )


@attrs.frozen(kw_only=True)
class Quarantine:
    quarantine_id: str
    binding_id: str
    connector_id: str
    path: str
    """Relative to the binding's root."""
    reasons: tuple[str, ...]
    """``review_required``, ``secret_detected``."""
    detectors: tuple[str, ...] = ()
    content_hash: str = ""
    size: int = 0
    data_class: str = "internal"
    disposition: str | None = None
    """None while pending; ``released``, ``deleted`` or ``reindexed`` after review."""
    reviewed_by: str | None = None
    reviewed_at_ms: int | None = None
    notes: str | None = None
    created_at_ms: int = 0
    updated_at_ms: int = 0

    @property
    def key(self) -> str:
        return self.quarantine_id

    @property
    def parent(self) -> str:
        return self.binding_id

    @property
    def state(self) -> str:
        return self.disposition or "pending"

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        return _compact(
            {
                "quarantine_id": self.quarantine_id,
                "tenant_context": tenant.to_wire(),
                "binding_id": self.binding_id,
                "connector_id": self.connector_id,
                "path": self.path,
                "reasons": list(self.reasons),
                "detectors": list(self.detectors),
                "content_hash": self.content_hash,
                "size": self.size,
                "data_class": self.data_class,
                "state": self.state,
                "disposition": self.disposition,
                "reviewed_by": self.reviewed_by,
                "reviewed_at_ms": self.reviewed_at_ms,
                "notes": self.notes,
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
            }
        )


@attrs.frozen(kw_only=True)
class IngestionJob:
    job_id: str
    binding_id: str
    connector_id: str
    kind: str
    """``import``, ``reindex`` or ``release``."""
    state: str = "running"
    """``running``, ``completed`` or ``failed``."""
    counts: dict[str, int] = attrs.field(factory=dict)
    error: str | None = None
    started_at_ms: int = 0
    finished_at_ms: int | None = None

    @property
    def key(self) -> str:
        return self.job_id

    @property
    def parent(self) -> str:
        return self.binding_id

    @property
    def created_at_ms(self) -> int:
        return self.started_at_ms

    @property
    def updated_at_ms(self) -> int:
        return self.finished_at_ms or self.started_at_ms

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        return _compact(
            {
                "job_id": self.job_id,
                "tenant_context": tenant.to_wire(),
                "binding_id": self.binding_id,
                "connector_id": self.connector_id,
                "kind": self.kind,
                "state": self.state,
                "counts": dict(self.counts),
                "error": self.error,
                "started_at_ms": self.started_at_ms,
                "finished_at_ms": self.finished_at_ms,
            }
        )


__all__ = [
    "AccessGrant",
    "Connector",
    "CredentialRef",
    "GrantResource",
    "IngestionJob",
    "IngestionPolicy",
    "Membership",
    "OrgUnit",
    "Quarantine",
    "ResourceRef",
    "SecretRef",
    "SourceBinding",
]
