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

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ...errors import ValidationFailed
from ...tools import normalize_patterns
from ..routing import parse_model_policy
from ..scheduler.schedule import MisfirePolicy, Schedule, parse_v2_schedule
from ..targets import parse_output_targets
from .dag import find_cycle

CODE = "AUTOMATION_V2_CREATE_FAILED"
STATUSES = ("active", "paused", "draft", "retired")
STAGE_KINDS = ("orchestrator", "workstream", "review", "test", "approval")
GATE_DECISIONS = ("approve", "rework", "cancel")
MAX_PARALLEL = 16

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


def fail(message: str, field: str, **extra: Any) -> ValidationFailed:
    return ValidationFailed(message, field=field, code=CODE, **extra)


def parse_definition(body: Any, *, workspace: Path, default_status: str = "draft") -> Definition:
    if not isinstance(body, Mapping):
        raise fail("request body must be a JSON object", "$")
    automation_id = _opt_str(body, "automation_id")
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
        creator_id=_opt_str(body, "creator_id"),
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
    spec["flow"] = _flow(body.get("flow"), {a["agent_id"] for a in agents})
    spec["execution"] = _execution(body.get("execution"))
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
            spec["metadata"] = _json(metadata, "metadata")
    for key, value in body.items():
        # Fields this engine does not interpret (scope_policy, watch_conditions,
        # handoff_config, ...) are kept, so nothing a client sent is lost.
        if key not in _KNOWN_KEYS and value is not None:
            spec[key] = _json(value, key)
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
        agent["skills"] = _strings(raw.get("skills"), f"{field}.skills")
        agent["tool_policy"] = tool_policy(
            raw.get("tool_policy"), f"{field}.tool_policy", default_allow=["read"]
        )
        agent["mcp_policy"] = mcp_policy(raw.get("mcp_policy"), f"{field}.mcp_policy")
        if raw.get("approval_policy") is not None:
            agent["approval_policy"] = _json(raw["approval_policy"], f"{field}.approval_policy")
        agents.append(agent)
    return agents


def tool_policy(value: Any, field: str, *, default_allow: list[str] | None) -> dict[str, list[str]]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise fail(f"`{field}` must be an object with allowlist and denylist", field)
    allow = normalize_patterns(_strings(value.get("allowlist"), f"{field}.allowlist"))
    deny = normalize_patterns(_strings(value.get("denylist"), f"{field}.denylist"))
    if not allow and default_allow is not None:
        allow = list(default_allow)
    return {"allowlist": allow, "denylist": deny}


def mcp_policy(value: Any, field: str) -> dict[str, list[str]]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise fail(f"`{field}` must be an object with allowed_servers", field)
    policy = {
        "allowed_servers": sorted(
            normalize_patterns(_strings(value.get("allowed_servers"), f"{field}.allowed_servers"))
        )
    }
    if value.get("allowed_tools") is not None:
        policy["allowed_tools"] = sorted(
            normalize_patterns(_strings(value["allowed_tools"], f"{field}.allowed_tools"))
        )
    return policy


# ---------------------------------------------------------------------- flow
def _flow(value: Any, agent_ids: set[str]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise fail("`flow` must be an object with `nodes`", "flow")
    raw_nodes = value.get("nodes")
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise fail("`flow.nodes` must be a non-empty array", "flow.nodes")
    ids: list[str] = []
    for index, raw in enumerate(raw_nodes):
        field = f"flow.nodes[{index}]"
        if not isinstance(raw, Mapping):
            raise fail(f"`{field}` must be an object", field)
        node_id = raw.get("node_id")
        if not isinstance(node_id, str) or not node_id.strip():
            raise fail(f"`{field}.node_id` must be a non-empty string", f"{field}.node_id")
        if node_id.strip() in ids:
            raise fail(
                f"node `{node_id.strip()}` is declared twice",
                f"{field}.node_id",
                node_id=node_id.strip(),
            )
        ids.append(node_id.strip())
    known = set(ids)
    nodes = [_node(raw, index, ids[index], known, agent_ids) for index, raw in enumerate(raw_nodes)]
    deps = {n["node_id"]: effective_deps(n) for n in nodes}
    cycle = find_cycle(ids, deps)
    if cycle:
        first = cycle[0]
        index = ids.index(first)
        raise fail(
            f"node `{first}` is part of a dependency cycle: {' -> '.join(cycle)}",
            f"flow.nodes[{index}].depends_on",
            node_id=first,
            cycle=cycle,
        )
    flow = {k: _json(v, f"flow.{k}") for k, v in value.items() if k != "nodes" and v is not None}
    flow["nodes"] = nodes
    return flow


def effective_deps(node: Mapping[str, Any]) -> list[str]:
    """``depends_on`` plus the sources of ``input_refs`` (an input must exist before the node runs)."""
    deps = list(node.get("depends_on") or ())
    for ref in node.get("input_refs") or ():
        if ref["from_step_id"] not in deps:
            deps.append(ref["from_step_id"])
    return deps


def _node(
    raw: Mapping[str, Any], index: int, node_id: str, known: set[str], agent_ids: set[str]
) -> dict[str, Any]:
    field = f"flow.nodes[{index}]"
    agent_id = raw.get("agent_id")
    if not isinstance(agent_id, str) or not agent_id.strip():
        raise fail(f"`{field}.agent_id` must name an agent", f"{field}.agent_id", node_id=node_id)
    if agent_id.strip() not in agent_ids:
        raise fail(
            f"node `{node_id}` uses unknown agent `{agent_id.strip()}`",
            f"{field}.agent_id",
            node_id=node_id,
            agent_id=agent_id.strip(),
        )
    objective = raw.get("objective")
    if not isinstance(objective, str) or not objective.strip():
        raise fail(
            f"node `{node_id}` needs a non-empty `objective`", f"{field}.objective", node_id=node_id
        )
    node: dict[str, Any] = {
        "node_id": node_id,
        "agent_id": agent_id.strip(),
        "objective": objective.strip(),
    }
    deps = normalize_patterns(
        _strings(raw.get("depends_on"), f"{field}.depends_on", node_id=node_id)
    )
    for dep in deps:
        if dep not in known:
            raise fail(
                f"node `{node_id}` depends on unknown node `{dep}`",
                f"{field}.depends_on",
                node_id=node_id,
                depends_on=dep,
            )
    node["depends_on"] = deps
    refs = raw.get("input_refs")
    if refs is not None:
        node["input_refs"] = _input_refs(refs, f"{field}.input_refs", node_id, known)
    stage = raw.get("stage_kind")
    if stage is not None:
        if stage not in STAGE_KINDS:
            raise fail(
                f"`{field}.stage_kind` must be one of {', '.join(STAGE_KINDS)}",
                f"{field}.stage_kind",
                node_id=node_id,
            )
        node["stage_kind"] = stage
    gate = raw.get("gate")
    if gate is not None:
        node["gate"] = _gate(gate, f"{field}.gate", node_id, known)
    if raw.get("tool_policy") is not None:
        node["tool_policy"] = tool_policy(
            raw["tool_policy"], f"{field}.tool_policy", default_allow=None
        )
    if raw.get("mcp_policy") is not None:
        node["mcp_policy"] = mcp_policy(raw["mcp_policy"], f"{field}.mcp_policy")
    for key in ("timeout_ms", "max_tool_calls"):
        if raw.get(key) is not None:
            node[key] = _positive_int(raw[key], f"{field}.{key}", node_id)
    retry = raw.get("retry_policy")
    if retry is not None:
        if not isinstance(retry, Mapping):
            raise fail(
                f"`{field}.retry_policy` must be an object",
                f"{field}.retry_policy",
                node_id=node_id,
            )
        node["retry_policy"] = {**_json(retry, f"{field}.retry_policy")}
        if retry.get("max_attempts") is not None:
            attempts = _positive_int(
                retry["max_attempts"], f"{field}.retry_policy.max_attempts", node_id
            )
            node["retry_policy"]["max_attempts"] = min(attempts, 10)
    handled = {
        "node_id",
        "agent_id",
        "objective",
        "depends_on",
        "input_refs",
        "stage_kind",
        "gate",
        "tool_policy",
        "mcp_policy",
        "timeout_ms",
        "max_tool_calls",
        "retry_policy",
    }
    for key, value in raw.items():
        if key not in handled and value is not None:
            node[key] = _json(value, f"{field}.{key}")
    return node


def _input_refs(value: Any, field: str, node_id: str, known: set[str]) -> list[dict[str, str]]:
    if not isinstance(value, list):
        raise fail(f"`{field}` must be an array", field, node_id=node_id)
    refs = []
    for index, raw in enumerate(value):
        where = f"{field}[{index}]"
        if not isinstance(raw, Mapping) or not isinstance(raw.get("from_step_id"), str):
            raise fail(f"`{where}` must be an object with from_step_id", where, node_id=node_id)
        source = raw["from_step_id"].strip()
        if source not in known:
            raise fail(
                f"node `{node_id}` takes input from unknown node `{source}`",
                f"{where}.from_step_id",
                node_id=node_id,
                depends_on=source,
            )
        alias = raw.get("alias")
        if alias is not None and not isinstance(alias, str):
            raise fail(f"`{where}.alias` must be a string", f"{where}.alias", node_id=node_id)
        refs.append({"from_step_id": source, "alias": (alias or "").strip() or source})
    return refs


def _gate(value: Any, field: str, node_id: str, known: set[str]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise fail(f"`{field}` must be an object", field, node_id=node_id)
    gate = _json(value, field)
    gate["required"] = bool(value.get("required", True))
    decisions = _strings(value.get("decisions"), f"{field}.decisions", node_id=node_id) or list(
        GATE_DECISIONS
    )
    for decision in decisions:
        if decision not in GATE_DECISIONS:
            raise fail(
                f"`{field}.decisions` may hold only {', '.join(GATE_DECISIONS)}",
                f"{field}.decisions",
                node_id=node_id,
            )
    gate["decisions"] = normalize_patterns(decisions)
    targets = normalize_patterns(
        _strings(value.get("rework_targets"), f"{field}.rework_targets", node_id=node_id)
    )
    for target in targets:
        if target not in known:
            raise fail(
                f"node `{node_id}` names unknown rework target `{target}`",
                f"{field}.rework_targets",
                node_id=node_id,
            )
    gate["rework_targets"] = targets
    return gate


def _execution(value: Any) -> dict[str, Any]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise fail("`execution` must be an object", "execution")
    execution = _json(value, "execution")
    parallel = value.get("max_parallel_agents", 1)
    if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
        raise fail(
            "`execution.max_parallel_agents` must be a positive integer",
            "execution.max_parallel_agents",
        )
    execution["max_parallel_agents"] = min(parallel, MAX_PARALLEL)
    for key in ("max_total_tokens", "max_total_tool_calls", "max_total_runtime_ms"):
        if value.get(key) is not None:
            execution[key] = _positive_int(value[key], f"execution.{key}", None)
    cost = value.get("max_total_cost_usd")
    if cost is not None and (
        isinstance(cost, bool) or not isinstance(cost, int | float) or cost <= 0
    ):
        raise fail(
            "`execution.max_total_cost_usd` must be a positive number",
            "execution.max_total_cost_usd",
        )
    return execution


# ---------------------------------------------------------------------- helpers
def _strings(value: Any, field: str, *, node_id: str | None = None) -> list[str]:
    if value is None:
        return []
    extra = {"node_id": node_id} if node_id else {}
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise fail(f"`{field}` must be an array of strings", field, **extra)
    return [v.strip() for v in value if v.strip()]


def _positive_int(value: Any, field: str, node_id: str | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        extra = {"node_id": node_id} if node_id else {}
        raise fail(f"`{field}` must be a positive integer", field, **extra)
    return value


def _opt_str(body: Mapping[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise fail(f"`{key}` must be a non-empty string", key)
    return value.strip()


def _json(value: Any, field: str) -> Any:
    """A deep copy of JSON data (refusing what JSON cannot hold)."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        raise fail(f"`{field}` must be plain JSON data", field) from None


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
