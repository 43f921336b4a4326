"""``search``: a governed or simple search request answered within what it may see.

A simple search names tiers (checked against an optional capability) and a
session, project or run. A governed search names its partition and read scopes;
its capability decides which scopes it gets, a retrieval gateway refuses bulk
extraction, and every governed search leaves an audit entry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ValidationFailed
from .factory import new_audit
from .governance import DEFAULT_CAPABILITY, GOVERNED_TIERS, check_context, split_scopes
from .records import MemoryScope, ScopeClause, SearchHit
from .requests import (
    GovernedSearchRequest,
    SearchRequest,
    check_content,
    check_tags,
    search_limit,
)
from .tiers import TIERS, check_tiers

if TYPE_CHECKING:
    from .service import MemoryService

# Bulk-extraction phrasing a retrieval gateway refuses ("dump everything").
_BULK = re.compile(
    r"(?i)\b(dump|export\s+all|list\s+all|show\s+all|everything\s+you\s+(know|remember))\b"
)


async def search(
    memory: MemoryService, request: SearchRequest | GovernedSearchRequest
) -> dict[str, Any]:
    if isinstance(request, GovernedSearchRequest):
        return await governed_search(memory, request)
    query = check_content(request.query, field="query")
    tiers: list[str] | None = request.tiers or ([request.tier] if request.tier else None)
    checked = check_tiers(tiers, field="tiers" if request.tiers else "tier") if tiers else TIERS
    blocked: list[str] = []
    if request.capability is not None:
        check_context(
            request.capability,
            run_id=request.run_id,
            project_id=request.project_id,
            now_ms=memory.clock.now_ms(),
        )
        allowed, blocked = split_scopes(request.capability, checked)
        checked = tuple(t for t in checked if t in allowed)
    session_id = request.session_id or await memory.session_of_run(request.run_id)
    scope = await memory.operator_scope(
        session_id=session_id, project_id=request.project_id, tiers=checked
    )
    hits = await memory.find(
        query,
        scope,
        tags=check_tags(request.tags),
        kinds=request.kinds or (),
        limit=search_limit(request.limit),
    )
    return _body(hits, scope.tiers, blocked, audit_id=None, query=query)


async def governed_search(memory: MemoryService, request: GovernedSearchRequest) -> dict[str, Any]:
    partition = request.partition
    capability = request.capability or DEFAULT_CAPABILITY
    check_context(
        capability,
        run_id=request.run_id,
        org_id=partition.org_id,
        workspace_id=partition.workspace_id,
        project_id=partition.project_id,
        now_ms=memory.clock.now_ms(),
    )
    query = check_content(request.query, field="query")
    requested = (
        list(request.read_scopes)
        if request.read_scopes is not None
        else list(capability.memory.read_tiers)
    )
    for index, scope_name in enumerate(requested):
        if scope_name not in GOVERNED_TIERS and scope_name not in TIERS:
            raise ValidationFailed(
                f"unknown read scope `{scope_name}`", field=f"read_scopes[{index}]"
            )
    now = memory.clock.now_ms()
    if request.retrieval_gateway is not None and _BULK.search(query):
        audit = new_audit(
            "search_blocked",
            now_ms=now,
            run_id=request.run_id,
            actor="retrieval_gateway",
            detail={"reason": "bulk_retrieval", "scopes": requested},
        )
        await memory.store.audit.append(audit)
        body = _body([], (), requested, audit_id=audit.id, query=query)
        body["blocked_reason"] = "bulk_retrieval"
        return body
    allowed, blocked = split_scopes(capability, requested)
    clauses: list[ScopeClause] = []
    for tier in TIERS:
        if tier not in allowed:
            continue
        if tier == "session":
            session_id = request.session_id or await memory.session_of_run(request.run_id)
            clauses.append(ScopeClause("session", session_id=session_id, run_id=request.run_id))
        elif tier == "project":
            clauses.append(ScopeClause("project", project_id=partition.project_id))
        else:
            clauses.append(ScopeClause("global"))
    scope = MemoryScope(
        tuple(clauses), org_id=partition.org_id, workspace_id=partition.workspace_id
    )
    hits = (
        await memory.find(
            query, scope, tags=check_tags(request.tags), limit=search_limit(request.limit)
        )
        if clauses
        else []
    )
    audit = new_audit(
        "search",
        now_ms=now,
        run_id=request.run_id,
        actor=capability.subject,
        detail={
            "scopes_used": list(scope.tiers),
            "blocked_scopes": blocked,
            "hits": len(hits),
            "workflow_phase": request.workflow_phase,
        },
    )
    await memory.store.audit.append(audit)
    return _body(hits, scope.tiers, blocked, audit_id=audit.id, query=query)


def _body(
    hits: Sequence[SearchHit],
    used: Sequence[str],
    blocked: Sequence[str],
    *,
    audit_id: str | None,
    query: str,
) -> dict[str, Any]:
    return {
        "results": [h.to_wire() for h in hits],
        "count": len(hits),
        "query": query,
        "scopes_used": list(used),
        "blocked_scopes": list(blocked),
        "audit_id": audit_id,
    }


__all__ = ["governed_search", "search"]
