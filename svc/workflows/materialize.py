"""Applying a plan: the automation v2 spec a plan becomes.

One agent per ``agent_role`` (``agent_<role>``) and one node per step, in plan
order, with the step's dependencies and input hand-offs. Agents may use every
tool (``*``) plus the plan's MCP servers (``mcp.<server>.*``), unless the
operator chose ``tool_access_mode: custom`` with a ``tool_allowlist``; a model
named in ``operator_preferences`` (``model_provider`` + ``model_id``) becomes
each agent's default model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .automation_spec import agent_id_for_role, agent_profile, mcp_allowlist
from .plans import WorkflowPlan

MAX_PARALLEL_AGENTS = 16


def model_policy_of(preferences: Mapping[str, Any] | None) -> dict[str, Any] | None:
    prefs = preferences or {}
    provider_id, model_id = prefs.get("model_provider"), prefs.get("model_id")
    if (
        isinstance(provider_id, str)
        and provider_id.strip()
        and isinstance(model_id, str)
        and model_id.strip()
    ):
        return {"default_model": {"provider_id": provider_id.strip(), "model_id": model_id.strip()}}
    return None


def tool_allowlist_of(plan: WorkflowPlan) -> list[str]:
    prefs = plan.operator_preferences or {}
    custom = prefs.get("tool_allowlist")
    if prefs.get("tool_access_mode") == "custom" and isinstance(custom, list):
        base = [t for t in custom if isinstance(t, str)]
    else:
        base = ["*"]
    return mcp_allowlist(base, plan.allowed_mcp_servers)


def max_parallel_of(preferences: Mapping[str, Any] | None) -> int:
    value = (preferences or {}).get("max_parallel_agents")
    if isinstance(value, bool) or not isinstance(value, int):
        return 1
    return max(1, min(value, MAX_PARALLEL_AGENTS))


def plan_to_automation(
    plan: WorkflowPlan,
    *,
    revision: int,
    package: Mapping[str, Any],
    schedule: Mapping[str, Any],
    status: str,
    creator_id: str | None,
) -> dict[str, Any]:
    allowlist = tool_allowlist_of(plan)
    policy = model_policy_of(plan.operator_preferences)
    roles = list(dict.fromkeys(s.agent_role for s in plan.steps))
    agents = [
        agent_profile(
            role, allowlist=allowlist, allowed_servers=plan.allowed_mcp_servers, model_policy=policy
        )
        for role in roles
    ]
    nodes = []
    for step in plan.steps:
        node: dict[str, Any] = {
            "node_id": step.step_id,
            "agent_id": agent_id_for_role(step.agent_role),
            "objective": step.objective,
            "depends_on": list(step.depends_on),
            "input_refs": [r.to_wire() for r in step.input_refs],
            "metadata": {
                **(dict(step.metadata) if step.metadata else {}),
                "plan_step_kind": step.kind,
            },
        }
        if step.output_contract:
            node["output_contract"] = dict(step.output_contract)
        nodes.append(node)
    spec: dict[str, Any] = {
        "name": plan.title,
        "status": status,
        "schedule": dict(schedule),
        "agents": agents,
        "flow": {"nodes": nodes},
        "execution": {"max_parallel_agents": max_parallel_of(plan.operator_preferences)},
        "workspace_root": plan.workspace_root,
        "metadata": {
            "origin": "workflow_planner",
            "workflow_plan_id": plan.plan_id,
            "workflow_plan_revision": revision,
            "workflow_plan_source": plan.plan_source,
            "workflow_planner_version": plan.planner_version,
            "plan_package": dict(package),
        },
    }
    if plan.description:
        spec["description"] = plan.description
    if creator_id:
        spec["creator_id"] = creator_id
    return spec


__all__ = ["max_parallel_of", "model_policy_of", "plan_to_automation", "tool_allowlist_of"]
