"""Automation v2 definitions: validation and the canonical spec.

:func:`parse_definition` turns a ``POST /automations/v2`` body into a
:class:`Definition`: the lifecycle fields (id, status, creator) and the
canonical ``spec`` mapping, the definition a run executes and a definition
hash covers. Canonical means: defaults filled in, lists trimmed and
de-duplicated (server lists sorted), optional fields absent rather than null,
so two bodies that mean the same automation have the same spec.

Every error is a 400 naming the field; flow errors also name the node
(``node_id``): cycles, unknown agents, unknown dependencies, duplicates.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ..routing import parse_model_policy
from ..scheduler.schedule import MisfirePolicy, Schedule, parse_v2_schedule
from ..targets import parse_output_targets
from .spec_fields import (
    CODE,
    GATE_DECISIONS,
    STAGE_KINDS,
    STATUSES,
    fail,
    json_copy,
    mcp_policy,
    opt_str,
    strings,
    tool_policy,
)
from .spec_flow import effective_deps, parse_execution, parse_flow

_LIFECYCLE_KEYS = {
    "automation_id",
    "status",
    "creator_id",
    "capabilities",
    "created_at_ms",
    "updated_at_ms",
    "next_fire_at_ms",
    "last_fired_at_ms",
    "creator_type",
    "creator_kind",
}
_KNOWN_KEYS = {
    "name",
    "description",
    "schedule",
    "agents",
    "flow",
    "execution",
    "output_targets",
    "workspace_root",
    "metadata",
}


@attrs.frozen
class Definition:
    automation_id: str | None
    status: str
    spec: dict[str, Any]
    schedule: Schedule
    misfire: MisfirePolicy
    creator_id: str | None = None


def parse_definition(body: Any, *, workspace: Path, default_status: str = "draft") -> Definition:
    if not isinstance(body, Mapping):
        raise fail("request body must be a JSON object", "$")
    automation_id = opt_str(body, "automation_id")
    status = body.get("status", default_status)
    if status not in STATUSES:
        raise fail(f"`status` must be one of {', '.join(STATUSES)}", "status")
    spec_input = {k: v for k, v in body.items() if k not in _LIFECYCLE_KEYS}
    capabilities = body.get("capabilities")
    if capabilities is not None:
        if not isinstance(capabilities, Mapping):
            raise fail("`capabilities` must be an object", "capabilities")
        metadata = spec_input.get("metadata")
        metadata = (
            {}
            if metadata is None
            else (dict(metadata) if isinstance(metadata, Mapping) else metadata)
        )
        if isinstance(metadata, dict):
            merged = {
                **(metadata.get("capabilities") or {}),
                **{k: bool(v) for k, v in capabilities.items()},
            }
            metadata["capabilities"] = merged
            spec_input["metadata"] = metadata
    spec = canonical_spec(spec_input, workspace=workspace)
    schedule, misfire = schedule_of(spec)
    return Definition(
        automation_id=automation_id,
        status=status,
        spec=spec,
        schedule=schedule,
        misfire=misfire,
        creator_id=opt_str(body, "creator_id"),
    )


def schedule_of(spec: Mapping[str, Any]) -> tuple[Schedule, MisfirePolicy]:
    return parse_v2_schedule(spec.get("schedule"), code=CODE)


def canonical_spec(body: Mapping[str, Any], *, workspace: Path) -> dict[str, Any]:
    """Validate a definition (without lifecycle fields) and return its canonical form."""
    if not isinstance(body, Mapping):
        raise fail("the automation definition must be a JSON object", "$")
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("`name` must be a non-empty string", "name")
    spec: dict[str, Any] = {"name": name.strip()}
    description = body.get("description")
    if description is not None:
        if not isinstance(description, str):
            raise fail("`description` must be a string", "description")
        spec["description"] = description
    schedule, misfire = parse_v2_schedule(body.get("schedule"), code=CODE)
    spec["schedule"] = schedule.v2_wire(misfire)
    agents = _agents(body.get("agents"))
    spec["agents"] = agents
    spec["flow"] = parse_flow(body.get("flow"), {a["agent_id"] for a in agents})
    spec["execution"] = parse_execution(body.get("execution"))
    targets = parse_output_targets(
        body.get("output_targets"), workspace=workspace, field="output_targets", code=CODE
    )
    if targets:
        spec["output_targets"] = list(targets)
    root = body.get("workspace_root")
    if root is not None:
        if not isinstance(root, str) or not Path(root).is_absolute():
            raise fail("`workspace_root` must be an absolute path", "workspace_root")
        spec["workspace_root"] = root
    metadata = body.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, Mapping):
            raise fail("`metadata` must be an object", "metadata")
        if metadata:
            spec["metadata"] = json_copy(metadata, "metadata")
    for key, value in body.items():
        # Fields this engine does not interpret (scope_policy, watch_conditions,
        # handoff_config, ...) are kept, so nothing a client sent is lost.
        if key not in _KNOWN_KEYS and value is not None:
            spec[key] = json_copy(value, key)
    return spec


# ---------------------------------------------------------------------- agents
def _agents(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not value:
        raise fail("`agents` must be a non-empty array", "agents")
    agents: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, raw in enumerate(value):
        field = f"agents[{index}]"
        if not isinstance(raw, Mapping):
            raise fail(f"`{field}` must be an object", field)
        agent_id = raw.get("agent_id")
        if not isinstance(agent_id, str) or not agent_id.strip():
            raise fail(f"`{field}.agent_id` must be a non-empty string", f"{field}.agent_id")
        agent_id = agent_id.strip()
        if agent_id in seen:
            raise fail(
                f"agent `{agent_id}` is declared twice", f"{field}.agent_id", agent_id=agent_id
            )
        seen.add(agent_id)
        display = raw.get("display_name")
        if display is not None and not isinstance(display, str):
            raise fail(f"`{field}.display_name` must be a string", f"{field}.display_name")
        agent: dict[str, Any] = {
            "agent_id": agent_id,
            "display_name": (display or "").strip() or agent_id,
        }
        for key in ("template_id", "avatar_url"):
            if raw.get(key) is not None:
                if not isinstance(raw[key], str):
                    raise fail(f"`{field}.{key}` must be a string", f"{field}.{key}")
                agent[key] = raw[key]
        policy = parse_model_policy(
            raw.get("model_policy"), field=f"{field}.model_policy", code=CODE
        )
        if policy:
            agent["model_policy"] = policy
        agent["skills"] = strings(raw.get("skills"), f"{field}.skills")
        agent["tool_policy"] = tool_policy(
            raw.get("tool_policy"), f"{field}.tool_policy", default_allow=["read"]
        )
        agent["mcp_policy"] = mcp_policy(raw.get("mcp_policy"), f"{field}.mcp_policy")
        if raw.get("approval_policy") is not None:
            agent["approval_policy"] = json_copy(raw["approval_policy"], f"{field}.approval_policy")
        agents.append(agent)
    return agents


__all__ = [
    "CODE",
    "GATE_DECISIONS",
    "STAGE_KINDS",
    "STATUSES",
    "Definition",
    "canonical_spec",
    "effective_deps",
    "mcp_policy",
    "parse_definition",
    "schedule_of",
    "tool_policy",
]
