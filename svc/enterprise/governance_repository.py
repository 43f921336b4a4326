"""Org units, their memberships and their access grants: one table each."""

from __future__ import annotations

from .records import AccessGrant, Membership, OrgUnit
from .tenant_table_repository import TenantTable


class OrgUnitRepository(TenantTable[OrgUnit]):
    table = "enterprise_org_units"
    record = OrgUnit


class MembershipRepository(TenantTable[Membership]):
    table = "enterprise_memberships"
    record = Membership


class GrantRepository(TenantTable[AccessGrant]):
    table = "enterprise_access_grants"
    record = AccessGrant


__all__ = ["GrantRepository", "MembershipRepository", "OrgUnitRepository"]
