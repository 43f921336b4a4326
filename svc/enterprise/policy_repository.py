"""Cross-tenant grants and tenant policies: one tenant-scoped table each.

A cross-tenant grant is stored under its issuer's tenant with the audience
tenant as its parent, so the audience's inbound grants are one query on the
parent across issuers (:meth:`CrossTenantGrantRepository.inbound`).
"""

from __future__ import annotations

from ..store import Tx
from .policy_records import CrossTenantGrant, Policy
from .tenant_table_repository import TenantTable


class CrossTenantGrantRepository(TenantTable[CrossTenantGrant]):
    table = "enterprise_cross_tenant_grants"
    record = CrossTenantGrant

    async def inbound(self, audience_key: str) -> list[CrossTenantGrant]:
        """Every grant issued to the audience tenant ``org/workspace/deployment``."""

        def q(tx: Tx) -> list[CrossTenantGrant]:
            rows = tx.execute(
                "SELECT body FROM enterprise_cross_tenant_grants WHERE parent_id = ? "
                "ORDER BY created_at_ms, id",
                (audience_key,),
            )
            return [self._decode(body) for (body,) in rows]

        return await self._db.read(q)


class PolicyRepository(TenantTable[Policy]):
    table = "enterprise_policies"
    record = Policy


__all__ = ["CrossTenantGrantRepository", "PolicyRepository"]
