"""Cross-tenant grants and tenant policies (records)."""

from __future__ import annotations

from typing import Any

import attrs

from .tenant import TenantContext


def _compact(wire: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in wire.items() if v is not None}


@attrs.frozen(kw_only=True)
class TenantParty:
    org_id: str
    workspace_id: str
    deployment_id: str | None = None

    @property
    def key(self) -> str:
        return f"{self.org_id}/{self.workspace_id}/{self.deployment_id or ''}"

    def to_wire(self) -> dict[str, Any]:
        return _compact(
            {
                "org_id": self.org_id,
                "workspace_id": self.workspace_id,
                "deployment_id": self.deployment_id,
            }
        )


@attrs.frozen(kw_only=True)
class Revocation:
    revoked_at_ms: int
    revoked_by: dict[str, str]
    reason: str | None = None


@attrs.frozen(kw_only=True)
class CrossTenantGrant:
    """A scoped capability the issuer tenant (the row's tenant) leases to one principal
    of the audience tenant; revocation appends a tombstone and never deletes."""

    grant_id: str
    issuer: TenantParty
    audience: TenantParty
    subject: dict[str, str]
    """``{kind, id}``: a principal of the audience tenant."""
    resource: dict[str, Any]
    """Owned by the issuer: ``{organization_id, workspace_id, resource_kind, resource_id,
    project_id?, path_prefix?}``."""
    permissions: tuple[str, ...]
    data_classes: tuple[str, ...] = ()
    tool_patterns: tuple[str, ...] = ()
    issued_at_ms: int
    not_before_ms: int
    expires_at_ms: int
    issued_by: dict[str, str]
    reason: str | None = None
    claims_hash: str
    suspended: bool = False
    revocation: Revocation | None = None
    created_at_ms: int = 0
    updated_at_ms: int = 0

    @property
    def key(self) -> str:
        return self.grant_id

    @property
    def parent(self) -> str:
        return self.audience.key

    @property
    def state(self) -> str:
        """The stored state (time-dependent states are :meth:`state_at`)."""
        if self.revocation is not None:
            return "revoked"
        return "suspended" if self.suspended else "active"

    def state_at(self, now_ms: int) -> str:
        stored = self.state
        if stored != "active":
            return stored
        if now_ms >= self.expires_at_ms:
            return "expired"
        return "pending" if now_ms < self.not_before_ms else "active"

    def to_wire(self, now_ms: int) -> dict[str, Any]:
        return _compact(
            {
                "grant_id": self.grant_id,
                "version": "v1",
                "issuer": self.issuer.to_wire(),
                "audience": self.audience.to_wire(),
                "subject": self.subject,
                "resource": self.resource,
                "permissions": list(self.permissions),
                "data_classes": list(self.data_classes),
                "tool_patterns": list(self.tool_patterns),
                "issued_at_ms": self.issued_at_ms,
                "not_before_ms": self.not_before_ms,
                "expires_at_ms": self.expires_at_ms,
                "issued_by": self.issued_by,
                "reason": self.reason,
                "claims_hash": self.claims_hash,
                "state": self.state_at(now_ms),
                "revocation": attrs.asdict(self.revocation) if self.revocation else None,
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
            }
        )


@attrs.frozen(kw_only=True)
class Policy:
    """A tenant policy. ``data_class_access`` policies are enforced by memory search
    (their ``denied_data_classes`` are never returned); other kinds are recorded."""

    policy_id: str
    display_name: str
    kind: str
    description: str | None = None
    effect: str = "deny"
    rules: dict[str, Any] = attrs.field(factory=dict)
    enabled: bool = True
    version: int = 1
    created_by: dict[str, str]
    created_at_ms: int = 0
    updated_at_ms: int = 0

    @property
    def key(self) -> str:
        return self.policy_id

    @property
    def parent(self) -> str:
        return self.kind

    @property
    def state(self) -> str:
        return "active" if self.enabled else "disabled"

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        return _compact(
            {
                "policy_id": self.policy_id,
                "tenant_context": tenant.to_wire(),
                "display_name": self.display_name,
                "kind": self.kind,
                "description": self.description,
                "effect": self.effect,
                "rules": self.rules,
                "state": self.state,
                "version": self.version,
                "created_by": self.created_by,
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
            }
        )


__all__ = ["CrossTenantGrant", "Policy", "Revocation", "TenantParty"]
