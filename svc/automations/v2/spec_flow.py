"""The flow of an automation v2 definition: its nodes, their dependencies, gates and execution.

Flow errors name the node (``node_id``): cycles, unknown agents, unknown
dependencies, duplicates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...tools import normalize_patterns
from .dag import find_cycle
from .spec_fields import (
    GATE_DECISIONS,
    MAX_PARALLEL,
    STAGE_KINDS,
    fail,
    json_copy,
    mcp_policy,
    positive_int,
    strings,
    tool_policy,
)


def parse_flow(value: Any, agent_ids: set[str]) -> dict[str, Any]:
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
    flow = {
        k: json_copy(v, f"flow.{k}") for k, v in value.items() if k != "nodes" and v is not None
    }
    flow["nodes"] = nodes
    return flow


def effective_deps(node: Mapping[str, Any]) -> list[str]:
    """``depends_on`` plus the sources of ``input_refs`` (an input exists before the node runs)."""
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
        strings(raw.get("depends_on"), f"{field}.depends_on", node_id=node_id)
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
            node[key] = positive_int(raw[key], f"{field}.{key}", node_id)
    retry = raw.get("retry_policy")
    if retry is not None:
        if not isinstance(retry, Mapping):
            raise fail(
                f"`{field}.retry_policy` must be an object",
                f"{field}.retry_policy",
                node_id=node_id,
            )
        node["retry_policy"] = {**json_copy(retry, f"{field}.retry_policy")}
        if retry.get("max_attempts") is not None:
            attempts = positive_int(
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
            node[key] = json_copy(value, f"{field}.{key}")
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
    gate = json_copy(value, field)
    gate["required"] = bool(value.get("required", True))
    decisions = strings(value.get("decisions"), f"{field}.decisions", node_id=node_id) or list(
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
        strings(value.get("rework_targets"), f"{field}.rework_targets", node_id=node_id)
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


def parse_execution(value: Any) -> dict[str, Any]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise fail("`execution` must be an object", "execution")
    execution = json_copy(value, "execution")
    parallel = value.get("max_parallel_agents", 1)
    if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
        raise fail(
            "`execution.max_parallel_agents` must be a positive integer",
            "execution.max_parallel_agents",
        )
    execution["max_parallel_agents"] = min(parallel, MAX_PARALLEL)
    for key in ("max_total_tokens", "max_total_tool_calls", "max_total_runtime_ms"):
        if value.get(key) is not None:
            execution[key] = positive_int(value[key], f"execution.{key}", None)
    cost = value.get("max_total_cost_usd")
    if cost is not None and (
        isinstance(cost, bool) or not isinstance(cost, int | float) or cost <= 0
    ):
        raise fail(
            "`execution.max_total_cost_usd` must be a positive number",
            "execution.max_total_cost_usd",
        )
    return execution


__all__ = ["effective_deps", "parse_execution", "parse_flow"]
