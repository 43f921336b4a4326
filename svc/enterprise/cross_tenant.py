"""Cross-tenant grants: an issuer tenant leases a scoped capability to one principal of
another tenant (``/enterprise/cross-tenant-grants``).

* create (issuer admin): ``{grant_id?, audience {org_id, workspace_id, deployment_id?},
  subject {kind, id}, resource_kind, resource_id, project_id?, path_prefix?,
  permissions[], data_classes[], tool_patterns[], not_before_ms?, expires_at_ms,
  reason?}``; the resource always belongs to the issuer (the server builds it from
  the request's tenant); the claims are hashed (``claims_hash``) so a change of
  what was leased is detectable;
* list (grants the caller's tenant issued), get, ``inbound`` (grants issued to the
  caller's tenant; a non-admin verified principal sees only its own), and
  ``revocations`` (tombstones of grants the tenant issued or received);
* revoke (issuer admin): a tombstone with reason, who and when; never a delete.

Local mode (the implicit ``local/local`` tenant) cannot issue: a grant crosses
tenants, which only an explicit tenant context names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from . import fields as f
from .errors import EnterpriseConflict, EnterpriseForbidden, EnterpriseInvalid, EnterpriseNotFound
from .policy_records import CrossTenantGrant, Revocation, TenantParty

if TYPE_CHECKING:
    from .service import EnterpriseService
    from .tenant import Caller

MAX_LEASE_MS = 366 * 24 * 3600 * 1000
"""A lease longer than a year is refused: cross-tenant access is meant to expire."""


def _party(value: Any) -> TenantParty:
    if not isinstance(value, dict):
        raise EnterpriseInvalid(
            "`audience` must be an object with org_id and workspace_id",
            code="ENTERPRISE_CROSS_TENANT_AUDIENCE_INVALID",
            field="audience",
        )
    deployment = value.get("deployment_id")
    return TenantParty(
        org_id=f.enterprise_id(
            value.get("org_id"), "org_id", code="ENTERPRISE_CROSS_TENANT_AUDIENCE_INVALID"
        ),
        workspace_id=f.enterprise_id(
            value.get("workspace_id"),
            "workspace_id",
            code="ENTERPRISE_CROSS_TENANT_AUDIENCE_INVALID",
        ),
        deployment_id=f.enterprise_id(
            deployment, "deployment_id", code="ENTERPRISE_CROSS_TENANT_AUDIENCE_INVALID"
        )
        if deployment
        else None,
    )


def _subject(value: Any) -> dict[str, str]:
    from .governance import MEMBER_KINDS

    if not isinstance(value, dict):
        raise EnterpriseInvalid(
            "`subject` must be an object with kind and id",
            code="ENTERPRISE_CROSS_TENANT_SUBJECT_INVALID",
            field="subject",
        )
    kind = f.choice(value, "kind", MEMBER_KINDS, "human_user")
    return {
        "kind": kind,
        "id": f.external_id(
            value.get("id"), "subject_id", code="ENTERPRISE_CROSS_TENANT_SUBJECT_INVALID"
        ),
    }


def _claims_hash(grant: CrossTenantGrant) -> str:
    claims = {
        "grant_id": grant.grant_id,
        "issuer": grant.issuer.to_wire(),
        "audience": grant.audience.to_wire(),
        "subject": grant.subject,
        "resource": grant.resource,
        "permissions": list(grant.permissions),
        "data_classes": list(grant.data_classes),
        "tool_patterns": list(grant.tool_patterns),
        "not_before_ms": grant.not_before_ms,
        "expires_at_ms": grant.expires_at_ms,
    }
    canonical = json.dumps(claims, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _require_explicit(caller: Caller) -> None:
    if caller.tenant.source != "explicit":
        raise EnterpriseForbidden(
            "cross-tenant grants need an explicit tenant context; local mode is one tenant",
            code="ENTERPRISE_CROSS_TENANT_CONTEXT_REQUIRED",
        )


async def create_grant(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    from .governance import RESOURCE_KINDS

    caller.require_admin()
    _require_explicit(caller)
    tenant = caller.tenant
    issuer = TenantParty(
        org_id=tenant.org_id, workspace_id=tenant.workspace_id, deployment_id=tenant.deployment_id
    )
    audience = _party(body.get("audience"))
    if audience.key == issuer.key:
        raise EnterpriseInvalid(
            "the audience must be another tenant (use an org unit grant within a tenant)",
            code="ENTERPRISE_CROSS_TENANT_AUDIENCE_IS_ISSUER",
            field="audience",
        )
    subject = _subject(body.get("subject"))
    kind = f.choice(body, "resource_kind", RESOURCE_KINDS, "")
    resource: dict[str, Any] = {
        "organization_id": tenant.org_id,
        "workspace_id": tenant.workspace_id,
        "resource_kind": kind,
        "resource_id": f.external_id(body.get("resource_id"), "resource_id"),
    }
    for optional in ("project_id", "path_prefix"):
        value = f.text(body, optional)
        if value:
            resource[optional] = value
    permissions = f.permissions(body)
    if not permissions:
        raise EnterpriseInvalid(
            "`permissions` must name at least one permission",
            code="ENTERPRISE_PERMISSION_INVALID",
            field="permissions",
        )
    now = svc.now_ms()
    not_before = f.millis(body, "not_before_ms") or now
    expires = f.millis(body, "expires_at_ms")
    if expires is None or expires <= max(now, not_before) or expires - now > MAX_LEASE_MS:
        raise EnterpriseInvalid(
            "`expires_at_ms` is required, in the future, after `not_before_ms`, within a year",
            code="ENTERPRISE_CROSS_TENANT_EXPIRY_INVALID",
            field="expires_at_ms",
        )
    grant_id = f.optional_id(body, "grant_id") or (
        f"ctg-{hashlib.sha256(f'{audience.key}{subject}{resource}{now}'.encode()).hexdigest()[:20]}"
    )
    grant = CrossTenantGrant(
        grant_id=grant_id,
        issuer=issuer,
        audience=audience,
        subject=subject,
        resource=resource,
        permissions=permissions,
        data_classes=f.data_classes(body),
        tool_patterns=f.strings(body, "tool_patterns"),
        issued_at_ms=now,
        not_before_ms=not_before,
        expires_at_ms=expires,
        issued_by=caller.created_by,
        reason=f.text(body, "reason"),
        claims_hash="",
        created_at_ms=now,
        updated_at_ms=now,
    )
    grant = attrs.evolve(grant, claims_hash=_claims_hash(grant))
    async with svc.turn(caller, "cross_tenant_grant", grant_id):
        if await svc.cross_tenant_grants.get(tenant.key, grant_id) is not None:
            raise EnterpriseConflict(
                f"cross-tenant grant `{grant_id}` already exists (revoke it and issue another)",
                code="ENTERPRISE_CROSS_TENANT_GRANT_ALREADY_EXISTS",
            )
        await svc.cross_tenant_grants.put(tenant.key, grant)
    svc.publish(
        caller,
        "enterprise.cross_tenant_grant.issued",
        {"grant_id": grant_id, "audience": audience.to_wire()},
    )
    return {
        **caller.base("enterprise cross-tenant grant issued"),
        "cross_tenant_grants": [grant.to_wire(now)],
        "count": 1,
    }


async def list_grants(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    caller.require_read()
    now = svc.now_ms()
    found = await svc.cross_tenant_grants.all(caller.tenant.key)
    wire = [g.to_wire(now) for g in found]
    return {**caller.base(), "cross_tenant_grants": wire, "count": len(wire)}


async def _require(svc: EnterpriseService, caller: Caller, grant_id: str) -> CrossTenantGrant:
    grant_id = f.enterprise_id(grant_id, "grant_id")
    grant = await svc.cross_tenant_grants.get(caller.tenant.key, grant_id)
    if grant is None:
        raise EnterpriseNotFound(
            f"cross-tenant grant `{grant_id}` does not exist",
            code="ENTERPRISE_CROSS_TENANT_GRANT_NOT_FOUND",
        )
    return grant


async def get_grant(svc: EnterpriseService, caller: Caller, grant_id: str) -> dict[str, Any]:
    caller.require_read()
    grant = await _require(svc, caller, grant_id)
    return {**caller.base(), "cross_tenant_grant": grant.to_wire(svc.now_ms())}


def _audience_key(caller: Caller) -> str:
    tenant = caller.tenant
    return f"{tenant.org_id}/{tenant.workspace_id}/{tenant.deployment_id or ''}"


async def inbound(
    svc: EnterpriseService, caller: Caller, *, include_inactive: bool
) -> dict[str, Any]:
    """Grants issued to the caller's tenant: all for an admin, its own for a principal."""
    principal = caller.principal
    if not principal.is_admin and not principal.verified:
        caller.require_read()
    now = svc.now_ms()
    found = await svc.cross_tenant_grants.inbound(_audience_key(caller))
    if not principal.is_admin:
        found = [g for g in found if g.subject.get("id") == principal.actor_id]
    if not include_inactive:
        found = [g for g in found if g.state_at(now) == "active"]
    wire = [g.to_wire(now) for g in found]
    return {**caller.base(), "cross_tenant_grants": wire, "count": len(wire)}


async def revocations(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    caller.require_read()
    issued = await svc.cross_tenant_grants.all(caller.tenant.key)
    received = await svc.cross_tenant_grants.inbound(_audience_key(caller))
    tombstones = [
        {
            "grant_id": g.grant_id,
            "issuer": g.issuer.to_wire(),
            "audience": g.audience.to_wire(),
            "claims_hash": g.claims_hash,
            **attrs.asdict(g.revocation),
        }
        for g in [*issued, *received]
        if g.revocation is not None
    ]
    tombstones.sort(key=lambda t: (t["revoked_at_ms"], t["grant_id"]))
    return {**caller.base(), "revocations": tombstones, "count": len(tombstones)}


async def revoke(
    svc: EnterpriseService, caller: Caller, grant_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    async with svc.turn(caller, "cross_tenant_grant", grant_id):
        grant = await _require(svc, caller, grant_id)
        if grant.revocation is not None:
            raise EnterpriseConflict(
                f"cross-tenant grant `{grant.grant_id}` is already revoked",
                code="ENTERPRISE_CROSS_TENANT_GRANT_ALREADY_REVOKED",
            )
        now = svc.now_ms()
        grant = attrs.evolve(
            grant,
            revocation=Revocation(
                revoked_at_ms=now, revoked_by=caller.created_by, reason=f.text(body, "reason")
            ),
            updated_at_ms=now,
        )
        await svc.cross_tenant_grants.put(caller.tenant.key, grant)
    svc.publish(caller, "enterprise.cross_tenant_grant.revoked", {"grant_id": grant.grant_id})
    return {
        **caller.base("enterprise cross-tenant grant revoked"),
        "cross_tenant_grants": [grant.to_wire(now)],
        "count": 1,
    }


__all__ = ["create_grant", "get_grant", "inbound", "list_grants", "revocations", "revoke"]
