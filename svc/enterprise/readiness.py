"""``GET /enterprise/readiness``: seven checks over the request tenant's records.

``overall_status`` is ``blocked`` when any check is blocked, else ``attention``
when any needs attention, else ``ready``. The reply is always HTTP 200 once
access is allowed: readiness is in the body.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .service import EnterpriseService
    from .tenant import Caller


def _check(id: str, ok: bool, summary: str, action: str, *, fail: str) -> dict[str, Any]:
    return {
        "id": id,
        "status": "ready" if ok else fail,
        "summary": summary,
        "recommended_action": None if ok else action,
    }


async def pending_approvals(svc: EnterpriseService) -> int:
    """Pending governance approvals: MCP capability requests awaiting a decision."""
    mcp = svc.engine.mcp
    if mcp is None:
        return 0
    return len(await mcp.capability_requests(status="pending", limit=1000))


def memory_context_policy(svc: EnterpriseService) -> dict[str, Any]:
    """Memory records carry their tenant and data class and every enterprise search
    filters on both, so strict tenant enforcement holds from start-up."""
    enabled = svc.engine.memory is not None
    return {
        "startup_ready": True,
        "tenant_enforcement": "strict",
        "data_class_enforcement": "grants",
        "memory_enabled": enabled,
    }


async def readiness(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    caller.require_read()
    tenant = caller.tenant
    key = tenant.key
    units = await svc.org_units.count_by_state(key)
    memberships = sum((await svc.memberships.count_by_state(key)).values())
    grants = sum((await svc.grants.count_by_state(key)).values())
    connectors = await svc.connectors.count_by_state(key)
    bindings = await svc.bindings.count_by_state(key)
    quarantines = await svc.quarantines.count_in_state(key, "pending")
    approvals = await pending_approvals(svc)
    policy = memory_context_policy(svc)
    active_units = units.get("active", 0)
    active_connectors = connectors.get("active", 0)
    enabled_bindings = bindings.get("enabled", 0)
    checks = [
        _check(
            "tenant_context",
            True,
            f"tenant `{tenant.org_id}` workspace `{tenant.workspace_id}` "
            "is attached to the request",
            "",
            fail="blocked",
        ),
        _check(
            "governance_skeleton",
            active_units >= 1 and memberships >= 1 and grants >= 1,
            f"{active_units} active org units, {memberships} memberships, {grants} access grants",
            "create a minimal org unit, membership, and access grant for the pilot",
            fail="attention",
        ),
        _check(
            "connectors",
            active_connectors >= 1,
            f"{active_connectors} active connectors out of {sum(connectors.values())} total",
            "create or resume one read-only pilot connector",
            fail="attention",
        ),
        _check(
            "source_bindings",
            enabled_bindings >= 1,
            f"{enabled_bindings} enabled source bindings out of {sum(bindings.values())} total",
            "create one enabled source binding and run preflight before import",
            fail="attention",
        ),
        _check(
            "quarantine",
            quarantines == 0,
            f"{quarantines} quarantine records require review",
            "review, release, delete, or reindex pending quarantine records",
            fail="blocked",
        ),
        _check(
            "approvals",
            approvals == 0,
            f"{approvals} governance approvals are pending",
            "resolve pending approval requests before go-live",
            fail="attention",
        ),
        _check(
            "memory_context_policy",
            bool(policy["startup_ready"]),
            json.dumps(policy, separators=(",", ":")),
            "enterprise or hosted memory requires strict tenant enforcement before serving prompts",
            fail="blocked",
        ),
    ]
    statuses = {c["status"] for c in checks}
    overall = (
        "blocked" if "blocked" in statuses else "attention" if "attention" in statuses else "ready"
    )
    return {
        **caller.base(),
        "overall_status": overall,
        "counts": {
            "org_units": sum(units.values()),
            "memberships": memberships,
            "access_grants": grants,
            "connectors": sum(connectors.values()),
            "connectors_by_state": connectors,
            "source_bindings": sum(bindings.values()),
            "source_bindings_by_state": bindings,
            "pending_quarantines": quarantines,
            "pending_approvals": approvals,
        },
        "checks": checks,
    }


__all__ = ["memory_context_policy", "pending_approvals", "readiness"]
