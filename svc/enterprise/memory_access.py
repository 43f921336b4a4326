"""Memory search by a principal: only records of data classes its grants allow.

The member searched for is the body's ``member_kind``/``member_id`` (an admin
may name anyone) or the verified principal itself. Its effective grants decide:

* an ``allow`` grant that permits reading (no permissions listed, or one of
  ``view``, ``read``, ``edit``, ``admin``) allows its data classes, or every
  class when it names none (a broad grant);
* a ``deny`` grant removes its data classes, or every class when it names none.

"Every class" is the named classes plus the classes of the tenant's bindings,
so the filter is an explicit list: a record of a class nobody named is never
returned. The search runs in the tenant's memory partition, with the class
filter applied by memory's own search (:class:`svc.memory.MemoryScope`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import fields as f
from .errors import EnterpriseForbidden, EnterpriseInvalid

if TYPE_CHECKING:
    from .records import AccessGrant
    from .service import EnterpriseService
    from .tenant import Caller

READ_PERMISSIONS = frozenset({"view", "read", "edit", "admin"})


def allowed_classes(grants: list[AccessGrant], universe: set[str]) -> set[str]:
    allowed: set[str] = set()
    denied: set[str] = set()
    for grant in grants:
        if grant.effect == "deny":
            denied |= set(grant.data_classes) if grant.data_classes else set(universe)
        elif not grant.permissions or READ_PERMISSIONS & set(grant.permissions):
            allowed |= set(grant.data_classes) if grant.data_classes else set(universe)
    return allowed - denied


async def search_memory(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    from ..memory import MemoryScope, ScopeClause
    from .governance import MEMBER_KINDS, effective_grants_of

    memory = svc.engine.memory
    if memory is None:
        raise EnterpriseInvalid("memory is not enabled", code="ENTERPRISE_MEMORY_UNAVAILABLE")
    query = f.text(body, "query")
    if not query:
        raise EnterpriseInvalid(
            "`query` is required", code="ENTERPRISE_query_INVALID", field="query"
        )
    principal = caller.principal
    named = body.get("member_id")
    member_id = f.external_id(named if named is not None else principal.actor_id, "member_id")
    member_kind = f.choice(body, "member_kind", MEMBER_KINDS, "human_user")
    speaks_for_self = principal.verified and principal.actor_id == member_id
    if not principal.is_admin and not speaks_for_self:
        raise EnterpriseForbidden(
            "enterprise read access is required for this request",
            code="ENTERPRISE_READ_ACCESS_REQUIRED",
        )
    limit = body.get("limit", 8)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100:
        raise EnterpriseInvalid(
            "`limit` must be an integer from 1 to 100",
            code="ENTERPRISE_limit_INVALID",
            field="limit",
        )
    grants = await effective_grants_of(svc, caller, member_kind, member_id)
    bindings = await svc.bindings.all(caller.tenant.key)
    universe = set(f.DATA_CLASSES) | {b.data_class for b in bindings}
    from .policies import denied_data_classes

    # The tenant's data class policies are a ceiling over every member's grants.
    denied_by_policy = await denied_data_classes(svc, caller)
    classes = sorted(allowed_classes(grants, universe) - denied_by_policy)
    clauses = None
    binding_id = f.optional_id(body, "binding_id")
    if binding_id is not None:
        from .connectors import require_binding

        binding = await require_binding(svc, caller, binding_id)
        clauses = (ScopeClause("project", project_id=binding.project_id),)
    scope = MemoryScope(
        clauses,
        org_id=caller.tenant.org_id,
        workspace_id=caller.tenant.workspace_id,
        classifications=tuple(classes),
    )
    hits = await memory.find(query, scope, limit=limit) if classes else []
    return {
        **caller.base(),
        "member": {"kind": member_kind, "id": member_id},
        "allowed_data_classes": classes,
        "policy_denied_data_classes": sorted(denied_by_policy),
        "results": [h.to_wire() for h in hits],
        "count": len(hits),
        "query": query,
    }


__all__ = ["READ_PERMISSIONS", "allowed_classes", "search_memory"]
