"""Automation v2 specs compiled from workflows and plans (SPEC 2.3 shapes, plain JSON dicts).

A workflow's *automation preview* shows how its steps would run as an
automation v2: one operator agent, one node per step, in step order. Plans are
compiled the same way with one agent per ``agent_role`` (see
:func:`svc.workflows.materialize.plan_to_automation`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .actions import objective_for
from .definitions import WorkflowSpec

MANUAL_SCHEDULE: Mapping[str, Any] = {
    "type": "manual",
    "timezone": "UTC",
    "misfire_policy": {"type": "run_once"},
}


def agent_id_for_role(role: str) -> str:
    return "agent_" + re.sub(r"[\s\-]+", "_", role.strip())


def display_name_for_role(role: str) -> str:
    return " ".join(part[:1].upper() + part[1:] for part in re.split(r"[_\-\s]+", role) if part)


def agent_profile(
    role: str,
    *,
    allowlist: Sequence[str],
    allowed_servers: Sequence[str] = (),
    model_policy: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    agent: dict[str, Any] = {
        "agent_id": agent_id_for_role(role),
        "display_name": display_name_for_role(role) or role,
        "skills": [],
        "tool_policy": {"allowlist": list(allowlist), "denylist": []},
        "mcp_policy": {"allowed_servers": sorted(set(allowed_servers))},
    }
    if model_policy:
        agent["model_policy"] = dict(model_policy)
    return agent


def mcp_allowlist(base: Iterable[str], servers: Iterable[str]) -> list[str]:
    """``base`` plus ``mcp.<server>.*`` for each server, trimmed and de-duplicated."""
    seen: dict[str, None] = {}
    for entry in [*base, *(f"mcp.{s.strip()}.*" for s in servers if s.strip())]:
        if entry.strip():
            seen.setdefault(entry.strip(), None)
    return list(seen)


def workflow_automation_preview(spec: WorkflowSpec, *, workspace_root: str) -> dict[str, Any]:
    """The automation v2 a workflow's steps amount to (nothing is created)."""
    nodes = []
    previous: str | None = None
    for step in spec.steps:
        nodes.append(
            {
                "node_id": step.step_id,
                "agent_id": agent_id_for_role("operator"),
                "objective": objective_for(step.action, step.with_),
                "depends_on": [previous] if previous else [],
                "input_refs": [],
                "output_contract": {"kind": "generic_artifact", "validator": "generic_artifact"},
                "metadata": {
                    "workflow_action": step.action,
                    **({"with": step.with_} if step.with_ is not None else {}),
                },
            }
        )
        previous = step.step_id
    return {
        "automation_id": f"workflow-automation-{spec.workflow_id}",
        "name": spec.name,
        "description": spec.description,
        "status": "draft",
        "schedule": dict(MANUAL_SCHEDULE),
        "agents": [agent_profile("operator", allowlist=["*"])],
        "flow": {"nodes": nodes},
        "execution": {"max_parallel_agents": 1},
        "output_targets": [],
        "workspace_root": workspace_root,
        "metadata": {
            "origin": "workflow_registry",
            "workflow_id": spec.workflow_id,
            "workflow_name": spec.name,
            "workflow_enabled": spec.enabled,
            "workflow_source": spec.source.to_wire() if spec.source else None,
            **({"mapped_automation_id": spec.automation_id} if spec.automation_id else {}),
        },
    }


__all__ = [
    "MANUAL_SCHEDULE",
    "agent_id_for_role",
    "agent_profile",
    "display_name_for_role",
    "mcp_allowlist",
    "workflow_automation_preview",
]
