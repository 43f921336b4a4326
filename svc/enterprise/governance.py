"""Org units, memberships and access grants: create (upsert), list, patch, effective grants.

Grants are accepted in two shapes: the reference's (``resource_kind``,
``resource_id``, ``permissions[]``, ``data_classes[]``) and the spec's
(``permission``, ``data_class``, ``resource_ref {kind, resource_id, ...}``); both
are stored the same way. The resource of a grant always belongs to the request's
tenant: the server builds it, whatever organization the body names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from . import fields as f
from .errors import EnterpriseInvalid, EnterpriseNotFound
from .records import AccessGrant, GrantResource, Membership, OrgUnit

if TYPE_CHECKING:
    from .service import EnterpriseService
    from .tenant import Caller

DEFAULT_TAXONOMY = "organization_unit"
UNIT_KINDS = (
    "department",
    "team",
    "role_domain",
    "contractor_group",
    "executive_group",
    "clinical_group",
    "operational_group",
    "custom",
    "unspecified",
)
MEMBER_KINDS = (
    "human_user",
    "organization_unit",
    "group",
    "department",
    "agent_worker",
    "automation",
    "service_account",
    "external_delegate",
    "support_operator",
)
MEMBER_SOURCES = (
    "direct",
    "hosted_control_plane",
    "scim",
    "google_workspace",
    "okta",
    "manual_import",
)
RESOURCE_KINDS = (
    "organization",
    "workspace",
    "organization_unit",
    "department",
    "group",
    "project",
    "data_room",
    "shared_drive",
    "document_collection",
    "data_store",
    "dataset",
    "document",
    "repository",
    "directory",
    "file",
    "artifact",
    "memory_space",
    "knowledge_space",
    "secret_provider_credential",
    "automation",
    "run",
    "approval",
    "audit_export",
    "mcp_server",
    "mcp_tool",
    "connector_instance",
    "source_binding",
    "source_object",
    "ingestion_job",
    "external_integration_account",
)
RECORD_STATES = ("active", "disabled", "revoked", "expired")


def compact_segment(value: str) -> str:
    """A member id as an id segment: other characters become ``-``, at most 48."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", value).strip("-")[:48].strip("-")


def default_membership_id(taxonomy: str, unit: str, member_id: str) -> str:
    return f"membership-{taxonomy}-{unit}-{compact_segment(member_id) or 'member'}"


def default_grant_id(taxonomy: str, unit: str, resource_id: str) -> str:
    return f"grant-{taxonomy}-{unit}-{resource_id}"


# ---------------------------------------------------------------------- org units
async def list_org_units(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    units = await svc.org_units.all(caller.tenant.key)
    units.sort(key=lambda u: (u.taxonomy_id, u.unit_id))
    wire = [u.to_wire(caller.tenant) for u in units]
    return {**caller.base(), "org_units": wire, "count": len(wire)}


def parse_org_unit(body: Mapping[str, Any]) -> dict[str, Any]:
    unit_id = f.enterprise_id(body.get("unit_id"), "unit_id")
    taxonomy = f.optional_id(body, "taxonomy_id") or DEFAULT_TAXONOMY
    display_name = f.text(body, "display_name")
    if not display_name:
        raise EnterpriseInvalid(
            "`display_name` is required",
            code="ENTERPRISE_ORG_UNIT_DISPLAY_NAME_REQUIRED",
            field="display_name",
        )
    labels = f.strings(body, "labels", limit=32)
    return {
        "unit_id": unit_id,
        "taxonomy_id": taxonomy,
        "display_name": display_name,
        "kind": f.choice(body, "kind", UNIT_KINDS, "unspecified"),
        "parent_unit_id": f.optional_id(body, "parent_unit_id"),
        "state": f.choice(body, "state", ("active", "disabled"), "active"),
        "description": f.text(body, "description"),
        "labels": labels,
    }


async def save_org_unit(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    values = parse_org_unit(body)
    key = f"{values['taxonomy_id']}/{values['unit_id']}"
    async with svc.turn(caller, "org_unit", key):
        existing = await svc.org_units.get(caller.tenant.key, key)
        now = svc.now_ms()
        unit = OrgUnit(
            **values,
            created_by=existing.created_by if existing else caller.created_by,
            created_at_ms=existing.created_at_ms if existing else now,
            updated_at_ms=now,
        )
        await svc.org_units.put(caller.tenant.key, unit)
    wire = unit.to_wire(caller.tenant)
    svc.publish(caller, "enterprise.org_unit.saved", {"id": key})
    return {
        **caller.base("enterprise organization unit saved"),
        "org_unit": wire,
        "org_units": [wire],
        "count": 1,
    }


async def _require_unit(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> tuple[str, str]:
    unit_id = f.enterprise_id(body.get("unit_id"), "unit_id")
    taxonomy = f.optional_id(body, "taxonomy_id") or DEFAULT_TAXONOMY
    if await svc.org_units.get(caller.tenant.key, f"{taxonomy}/{unit_id}") is None:
        raise EnterpriseNotFound(
            f"org unit `{taxonomy}/{unit_id}` does not exist",
            code="ENTERPRISE_ORG_UNIT_NOT_FOUND",
            field="unit_id",
        )
    return taxonomy, unit_id


# ---------------------------------------------------------------------- memberships
async def list_memberships(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    found = await svc.memberships.all(caller.tenant.key)
    wire = [m.to_wire(caller.tenant) for m in found]
    return {**caller.base(), "memberships": wire, "count": len(wire)}


async def save_membership(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    taxonomy, unit_id = await _require_unit(svc, caller, body)
    member_id = f.external_id(body.get("member_id"), "member_id")
    membership_id = f.optional_id(body, "membership_id") or default_membership_id(
        taxonomy, unit_id, member_id
    )
    membership_id = f.enterprise_id(membership_id, "membership_id")
    async with svc.turn(caller, "membership", membership_id):
        existing = await svc.memberships.get(caller.tenant.key, membership_id)
        now = svc.now_ms()
        membership = Membership(
            membership_id=membership_id,
            unit_key=f"{taxonomy}/{unit_id}",
            member_kind=f.choice(body, "member_kind", MEMBER_KINDS, "human_user"),
            member_id=member_id,
            source=f.choice(body, "source", MEMBER_SOURCES, "direct"),
            state=f.choice(body, "state", RECORD_STATES, "active"),
            created_at_ms=existing.created_at_ms if existing else now,
            updated_at_ms=now,
            expires_at_ms=f.millis(body, "expires_at_ms"),
        )
        await svc.memberships.put(caller.tenant.key, membership)
    wire = membership.to_wire(caller.tenant)
    svc.publish(caller, "enterprise.membership.saved", {"id": membership_id})
    return {
        **caller.base("enterprise organization unit membership saved"),
        "memberships": [wire],
        "count": 1,
    }


async def patch_membership(
    svc: EnterpriseService, caller: Caller, membership_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    membership_id = f.enterprise_id(membership_id, "membership_id")
    async with svc.turn(caller, "membership", membership_id):
        existing = await svc.memberships.get(caller.tenant.key, membership_id)
        if existing is None:
            raise EnterpriseNotFound(
                f"membership `{membership_id}` does not exist",
                code="ENTERPRISE_MEMBERSHIP_NOT_FOUND",
            )
        changed = attrs.evolve(
            existing,
            state=f.choice(body, "state", RECORD_STATES, existing.state),
            expires_at_ms=f.millis(body, "expires_at_ms")
            if "expires_at_ms" in body
            else existing.expires_at_ms,
            updated_at_ms=svc.now_ms(),
        )
        await svc.memberships.put(caller.tenant.key, changed)
    wire = changed.to_wire(caller.tenant)
    return {
        **caller.base("enterprise organization unit membership updated"),
        "memberships": [wire],
        "count": 1,
    }


# ---------------------------------------------------------------------- grants
def parse_grant_shape(body: Mapping[str, Any]) -> dict[str, Any]:
    """Both grant shapes as the reference's field names (see the module docstring)."""
    data = dict(body)
    ref = body.get("resource_ref")
    if isinstance(ref, dict):
        data.setdefault("resource_kind", ref.get("resource_kind") or ref.get("kind"))
        data.setdefault("resource_id", ref.get("resource_id"))
        for key in ("project_id", "path_prefix"):
            if ref.get(key) is not None:
                data.setdefault(key, ref[key])
    if "permissions" not in data and isinstance(body.get("permission"), str):
        data["permissions"] = [body["permission"]]
    if "data_classes" not in data and isinstance(body.get("data_class"), str):
        data["data_classes"] = [body["data_class"]]
    return data


async def list_grants(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    found = await svc.grants.all(caller.tenant.key)
    wire = [g.to_wire(caller.tenant) for g in found]
    return {**caller.base(), "access_grants": wire, "count": len(wire)}


async def save_grant(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    data = parse_grant_shape(body)
    taxonomy, unit_id = await _require_unit(svc, caller, data)
    resource_kind = f.choice(data, "resource_kind", RESOURCE_KINDS, "")
    resource_id = f.external_id(data.get("resource_id"), "resource_id")
    grant_id = f.enterprise_id(
        f.optional_id(data, "grant_id") or default_grant_id(taxonomy, unit_id, resource_id),
        "grant_id",
    )
    project_id = f.optional_id(data, "project_id")
    draft = AccessGrant(
        grant_id=grant_id,
        unit_key=f"{taxonomy}/{unit_id}",
        resource=GrantResource(
            resource_kind=resource_kind,
            resource_id=resource_id,
            project_id=project_id,
            path_prefix=f.text(data, "path_prefix"),
        ),
        effect=f.choice(data, "effect", ("allow", "deny"), "allow"),
        permissions=f.permissions(data),
        data_classes=f.data_classes(data),
        tool_patterns=f.strings(data, "tool_patterns"),
        state=f.choice(data, "state", RECORD_STATES, "active"),
        expires_at_ms=f.millis(data, "expires_at_ms"),
    )
    async with svc.turn(caller, "grant", grant_id):
        existing = await svc.grants.get(caller.tenant.key, grant_id)
        now = svc.now_ms()
        grant = attrs.evolve(
            draft, created_at_ms=existing.created_at_ms if existing else now, updated_at_ms=now
        )
        await svc.grants.put(caller.tenant.key, grant)
    wire = grant.to_wire(caller.tenant)
    svc.publish(caller, "enterprise.access_grant.saved", {"id": grant_id})
    return {
        **caller.base("enterprise organization unit access grant saved"),
        "access_grants": [wire],
        "count": 1,
    }


async def patch_grant(
    svc: EnterpriseService, caller: Caller, grant_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    grant_id = f.enterprise_id(grant_id, "grant_id")
    async with svc.turn(caller, "grant", grant_id):
        existing = await svc.grants.get(caller.tenant.key, grant_id)
        if existing is None:
            raise EnterpriseNotFound(
                f"access grant `{grant_id}` does not exist", code="ENTERPRISE_GRANT_NOT_FOUND"
            )
        changed = attrs.evolve(
            existing,
            state=f.choice(body, "state", RECORD_STATES, existing.state),
            expires_at_ms=f.millis(body, "expires_at_ms")
            if "expires_at_ms" in body
            else existing.expires_at_ms,
            updated_at_ms=svc.now_ms(),
        )
        await svc.grants.put(caller.tenant.key, changed)
    wire = changed.to_wire(caller.tenant)
    return {
        **caller.base("enterprise organization unit access grant updated"),
        "access_grants": [wire],
        "count": 1,
    }


async def effective_grants_of(
    svc: EnterpriseService, caller: Caller, member_kind: str, member_id: str
) -> list[AccessGrant]:
    """The live grants of the units the member belongs to (live memberships only)."""
    now = svc.now_ms()
    memberships = await svc.memberships.all(caller.tenant.key)
    units = {
        m.unit_key
        for m in memberships
        if m.member_kind == member_kind and m.member_id == member_id and m.live(now)
    }
    if not units:
        return []
    active_units = {
        u.key for u in await svc.org_units.all(caller.tenant.key) if u.state == "active"
    }
    grants = await svc.grants.all(caller.tenant.key)
    return [g for g in grants if g.unit_key in units & active_units and g.live(now)]


async def effective_grants(
    svc: EnterpriseService, caller: Caller, member_kind: str | None, member_id: str | None
) -> dict[str, Any]:
    kind = f.choice({"member_kind": member_kind}, "member_kind", MEMBER_KINDS, "human_user")
    member = f.external_id(member_id, "member_id")
    found = await effective_grants_of(svc, caller, kind, member)
    scoped = [{**g.to_wire(caller.tenant), "member": {"kind": kind, "id": member}} for g in found]
    return {**caller.base(), "grants": scoped, "count": len(scoped)}


__all__ = [
    "DEFAULT_TAXONOMY",
    "MEMBER_KINDS",
    "RESOURCE_KINDS",
    "default_grant_id",
    "default_membership_id",
    "effective_grants",
    "effective_grants_of",
    "list_grants",
    "list_memberships",
    "list_org_units",
    "parse_grant_shape",
    "patch_grant",
    "patch_membership",
    "save_grant",
    "save_membership",
    "save_org_unit",
]
