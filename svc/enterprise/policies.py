"""Tenant policies (``/enterprise/policies``): create (upsert, versioned), list, get,
patch, evaluate.

Kinds: ``data_class_access`` (``rules.denied_data_classes``: memory search never
returns records of those classes to anyone in the tenant, whatever the grants
say), ``tool_access`` (``rules.denied_tool_patterns``), ``retention`` and
``custom`` (recorded for the operator; evaluate reports them). Each save bumps
the policy's ``version``. ``POST /enterprise/policies/evaluate`` answers what
the active policies decide for a data class and/or a tool name.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from . import fields as f
from .errors import EnterpriseInvalid, EnterpriseNotFound
from .policy_records import Policy

if TYPE_CHECKING:
    from .service import EnterpriseService
    from .tenant import Caller

KINDS = ("data_class_access", "tool_access", "retention", "custom")
EFFECTS = ("deny", "allow", "audit")


def _rules(kind: str, value: Any) -> dict[str, Any]:
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise EnterpriseInvalid(
            "`rules` must be an object", code="ENTERPRISE_POLICY_RULES_INVALID", field="rules"
        )
    rules = dict(value)
    if kind == "data_class_access":
        rules["denied_data_classes"] = list(f.data_classes(rules, "denied_data_classes"))
    elif kind == "tool_access":
        rules["denied_tool_patterns"] = list(f.strings(rules, "denied_tool_patterns"))
    return rules


async def denied_data_classes(svc: EnterpriseService, caller: Caller) -> set[str]:
    """What the tenant's active data class policies keep out of every search."""
    denied: set[str] = set()
    for policy in await svc.policies.all(caller.tenant.key, parent="data_class_access"):
        if policy.enabled and policy.effect == "deny":
            denied |= set(policy.rules.get("denied_data_classes") or ())
    return denied


async def list_policies(svc: EnterpriseService, caller: Caller) -> dict[str, Any]:
    found = [p.to_wire(caller.tenant) for p in await svc.policies.all(caller.tenant.key)]
    return {**caller.base(), "policies": found, "count": len(found)}


async def _require(svc: EnterpriseService, caller: Caller, policy_id: str) -> Policy:
    policy_id = f.enterprise_id(policy_id, "policy_id")
    found = await svc.policies.get(caller.tenant.key, policy_id)
    if found is None:
        raise EnterpriseNotFound(
            f"policy `{policy_id}` does not exist", code="ENTERPRISE_POLICY_NOT_FOUND"
        )
    return found


async def get_policy(svc: EnterpriseService, caller: Caller, policy_id: str) -> dict[str, Any]:
    policy = await _require(svc, caller, policy_id)
    return {**caller.base(), "policy": policy.to_wire(caller.tenant)}


async def save_policy(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    policy_id = f.enterprise_id(body.get("policy_id"), "policy_id")
    display_name = f.text(body, "display_name")
    if not display_name:
        raise EnterpriseInvalid(
            "`display_name` is required",
            code="ENTERPRISE_POLICY_DISPLAY_NAME_REQUIRED",
            field="display_name",
        )
    kind = f.choice(body, "kind", KINDS, "custom")
    effect = f.choice(body, "effect", EFFECTS, "deny")
    rules = _rules(kind, body.get("rules"))
    state = f.choice(body, "state", ("active", "disabled"), "active")
    async with svc.turn(caller, "policy", policy_id):
        previous = await svc.policies.get(caller.tenant.key, policy_id)
        now = svc.now_ms()
        policy = Policy(
            policy_id=policy_id,
            display_name=display_name,
            kind=kind,
            description=f.text(body, "description"),
            effect=effect,
            rules=rules,
            enabled=state == "active",
            version=previous.version + 1 if previous else 1,
            created_by=previous.created_by if previous else caller.created_by,
            created_at_ms=previous.created_at_ms if previous else now,
            updated_at_ms=now,
        )
        await svc.policies.put(caller.tenant.key, policy)
    svc.publish(caller, "enterprise.policy.saved", {"policy_id": policy_id, "kind": kind})
    return {
        **caller.base("enterprise policy saved"),
        "policies": [policy.to_wire(caller.tenant)],
        "count": 1,
    }


async def patch_policy(
    svc: EnterpriseService, caller: Caller, policy_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    async with svc.turn(caller, "policy", policy_id):
        policy = await _require(svc, caller, policy_id)
        changes: dict[str, Any] = {}
        if body.get("state") is not None:
            changes["enabled"] = f.choice(body, "state", ("active", "disabled"), "active") == (
                "active"
            )
        if body.get("display_name") is not None:
            changes["display_name"] = f.text(body, "display_name") or policy.display_name
        if body.get("description") is not None:
            changes["description"] = f.text(body, "description")
        if body.get("rules") is not None:
            changes["rules"] = _rules(policy.kind, body.get("rules"))
        if body.get("effect") is not None:
            changes["effect"] = f.choice(body, "effect", EFFECTS, policy.effect)
        policy = attrs.evolve(
            policy, version=policy.version + 1, updated_at_ms=svc.now_ms(), **changes
        )
        await svc.policies.put(caller.tenant.key, policy)
    svc.publish(caller, "enterprise.policy.saved", {"policy_id": policy.policy_id})
    return {
        **caller.base("enterprise policy updated"),
        "policies": [policy.to_wire(caller.tenant)],
        "count": 1,
    }


async def evaluate(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    """What the tenant's active policies decide for ``data_class`` and/or ``tool``."""
    caller.require_read()
    data_class = f.data_class(body["data_class"]) if body.get("data_class") else None
    tool = f.text(body, "tool")
    if data_class is None and not tool:
        raise EnterpriseInvalid(
            "name a `data_class` or a `tool` to evaluate",
            code="ENTERPRISE_POLICY_EVALUATION_INVALID",
            field="data_class",
        )
    matched: list[dict[str, Any]] = []
    decision = "allow"
    for policy in await svc.policies.all(caller.tenant.key):
        if not policy.enabled:
            continue
        hit = False
        if data_class is not None and policy.kind == "data_class_access":
            hit = data_class in (policy.rules.get("denied_data_classes") or ())
        if tool and policy.kind == "tool_access":
            patterns = policy.rules.get("denied_tool_patterns") or ()
            hit = hit or any(fnmatch.fnmatchcase(tool, p) for p in patterns)
        if hit:
            matched.append(
                {"policy_id": policy.policy_id, "version": policy.version, "effect": policy.effect}
            )
            if policy.effect == "deny":
                decision = "deny"
    return {
        **caller.base(),
        "decision": decision,
        "data_class": data_class,
        "tool": tool,
        "matched_policies": matched,
    }


__all__ = [
    "KINDS",
    "denied_data_classes",
    "evaluate",
    "get_policy",
    "list_policies",
    "patch_policy",
    "save_policy",
]
