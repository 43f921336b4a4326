"""Graph validation of an orchestration: the report ``{valid, issues[]}``.

Pure: no store, no automations. Reference checks (does each workflow's automation
exist, is its pin fresh) live in :mod:`svc.goals.definitions`. A draft is validated as
if it were about to become a published version, except that unpinned workflows and the
version number are only errors for a published record.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import attrs

from .orchestration import SCHEMA_VERSION, Orchestration
from .waitspec import GATE_KINDS, wait_spec_problems


@attrs.frozen
class Issue:
    code: str
    message: str
    node_id: str | None = None
    edge_id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.node_id is not None:
            wire["node_id"] = self.node_id
        if self.edge_id is not None:
            wire["edge_id"] = self.edge_id
        return wire


@attrs.frozen
class Report:
    issues: tuple[Issue, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.issues

    def with_issues(self, more: list[Issue]) -> Report:
        return Report(self.issues + tuple(more))

    def to_wire(self) -> dict[str, Any]:
        return {"valid": self.valid, "issues": [i.to_wire() for i in self.issues]}


def validate_orchestration(spec: Orchestration, *, draft: bool) -> Report:
    """Every graph issue of ``spec``; ``draft`` validates the draft slot as a future version."""
    issues: list[Issue] = []
    add = issues.append
    if spec.schema_version != SCHEMA_VERSION:
        add(Issue("unsupported_schema_version", f"schema_version must be {SCHEMA_VERSION}"))
    if not draft:
        if spec.version <= 0:
            add(Issue("invalid_version", "published versions are numbered from 1"))
        if spec.status == "published" and spec.published_at_ms is None:
            add(Issue("missing_published_at", "published versions carry published_at_ms"))

    nodes: dict[str, Any] = {}
    for node in spec.nodes:
        if not node.node_id.strip():
            add(Issue("empty_node_id", "node ids must not be blank"))
            continue
        if node.node_id in nodes:
            add(Issue("duplicate_node_id", "node ids must be unique", node_id=node.node_id))
            continue
        nodes[node.node_id] = node
        _check_node(node, draft, add)

    if spec.root_node_id not in nodes:
        add(
            Issue(
                "missing_root",
                "root_node_id does not name a node",
                node_id=spec.root_node_id or None,
            )
        )
    policy = spec.goal_policy
    if policy.max_hops <= 0:
        add(Issue("invalid_max_hops", "goal_policy.max_hops must be greater than zero"))
    for name in ("deadline_at_ms", "max_total_tokens", "max_total_cost_usd"):
        value = getattr(policy, name)
        if value is not None and value < 0:
            add(Issue("invalid_goal_policy", f"goal_policy.{name} must not be negative"))

    edge_ids: set[str] = set()
    keys: set[tuple[str, str]] = set()
    for edge in spec.edges:
        if edge.edge_id in edge_ids:
            add(Issue("duplicate_edge_id", "edge ids must be unique", edge_id=edge.edge_id))
        edge_ids.add(edge.edge_id)
        source, target = nodes.get(edge.from_node_id), nodes.get(edge.to_node_id)
        if source is None or target is None:
            add(Issue("unknown_edge_node", "edge endpoints must name nodes", edge_id=edge.edge_id))
        if not edge.transition_key.strip():
            add(Issue("empty_transition_key", "edges need a transition_key", edge_id=edge.edge_id))
        elif (edge.from_node_id, edge.transition_key) in keys:
            add(
                Issue(
                    "duplicate_transition_key",
                    "a node cannot have two edges with one transition key",
                    node_id=edge.from_node_id,
                    edge_id=edge.edge_id,
                )
            )
        keys.add((edge.from_node_id, edge.transition_key))
        if source is not None and source.is_terminal:
            add(
                Issue(
                    "terminal_has_outgoing_edge",
                    "terminal nodes end the goal",
                    node_id=source.node_id,
                    edge_id=edge.edge_id,
                )
            )
        if (
            source is not None
            and source.is_workflow
            and edge.transition_key.strip()
            and edge.transition_key not in source.allowed_transition_keys
        ):
            add(
                Issue(
                    "unknown_transition_key",
                    "edge key is not declared by its workflow node",
                    node_id=source.node_id,
                    edge_id=edge.edge_id,
                )
            )
        contract = edge.artifact_contract
        if contract is not None:
            artifact_type = contract.artifact_type
            if not artifact_type.strip():
                add(
                    Issue(
                        "empty_artifact_type",
                        "artifact contracts need an artifact_type",
                        edge_id=edge.edge_id,
                    )
                )
            else:
                if (
                    source is not None
                    and source.emits_artifact_types
                    and artifact_type not in source.emits_artifact_types
                ):
                    add(
                        Issue(
                            "source_artifact_mismatch",
                            "the source node does not emit this artifact type",
                            node_id=source.node_id,
                            edge_id=edge.edge_id,
                        )
                    )
                if (
                    target is not None
                    and target.accepts_artifact_types
                    and artifact_type not in target.accepts_artifact_types
                ):
                    add(
                        Issue(
                            "target_artifact_mismatch",
                            "the target node does not accept this artifact type",
                            node_id=target.node_id,
                            edge_id=edge.edge_id,
                        )
                    )

    _check_reachability(spec, nodes, add)
    return Report(tuple(issues))


def _check_node(node: Any, draft: bool, add: Any) -> None:
    if node.is_workflow:
        if not (node.automation_id or "").strip():
            add(
                Issue(
                    "missing_automation_id",
                    "workflow nodes name an automation",
                    node_id=node.node_id,
                )
            )
        if not draft and not node.pinned_definition_hash:
            add(
                Issue(
                    "unpinned_workflow",
                    "published workflow nodes are pinned to a definition hash",
                    node_id=node.node_id,
                )
            )
        seen: set[str] = set()
        for key in node.allowed_transition_keys:
            if not key.strip() or key in seen:
                add(
                    Issue(
                        "invalid_allowed_transition_key",
                        "transition keys must be non-blank and unique",
                        node_id=node.node_id,
                    )
                )
                break
            seen.add(key)
        if node.wait is not None:
            problems = wait_spec_problems(node.wait)
            if not problems and node.wait.get("kind") not in GATE_KINDS:
                problems = [f"a workflow run can only wait on {' or '.join(GATE_KINDS)}"]
            if problems:
                add(Issue("invalid_wait", "; ".join(problems), node_id=node.node_id))
    elif node.kind == "wait":
        problems = wait_spec_problems(node.wait)
        if problems:
            add(Issue("invalid_wait", "; ".join(problems), node_id=node.node_id))


def _check_reachability(spec: Orchestration, nodes: dict[str, Any], add: Any) -> None:
    forward: dict[str, list[str]] = {n: [] for n in nodes}
    backward: dict[str, list[str]] = {n: [] for n in nodes}
    for edge in spec.edges:
        if edge.from_node_id in nodes and edge.to_node_id in nodes:
            forward[edge.from_node_id].append(edge.to_node_id)
            backward[edge.to_node_id].append(edge.from_node_id)
    for node_id, node in nodes.items():
        if not node.is_terminal and not forward[node_id]:
            add(
                Issue(
                    "missing_outgoing_transition",
                    "non-terminal nodes need an outgoing edge",
                    node_id=node_id,
                )
            )
    terminals = [n for n, node in nodes.items() if node.is_terminal]
    if not terminals:
        add(Issue("missing_terminal", "an orchestration needs a terminal node"))
    reachable = _closure([spec.root_node_id] if spec.root_node_id in nodes else [], forward)
    for node_id in nodes:
        if node_id not in reachable:
            add(
                Issue(
                    "unreachable_node", "the node cannot be reached from the root", node_id=node_id
                )
            )
    finishing = _closure(terminals, backward)
    for node_id in nodes:
        if node_id in reachable and node_id not in finishing and terminals:
            add(
                Issue(
                    "no_terminal_path",
                    "no terminal node can be reached from this node",
                    node_id=node_id,
                )
            )


def _closure(start: list[str], graph: dict[str, list[str]]) -> set[str]:
    seen = set(start)
    queue = deque(start)
    while queue:
        for nxt in graph[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


__all__ = ["Issue", "Report", "validate_orchestration"]
