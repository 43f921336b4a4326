"""The projection's graph: each node and edge of the pinned orchestration with its state.

A node is ``not_started``, ``running``, ``approval``, ``claiming``, ``timer_wait``,
``external_wait``, ``paused``, ``completed`` or ``failed``, from the goal's run links, their
statuses, its waits and its handoffs; an edge is ``not_started``, ``eligible``, ``claiming``
or ``taken``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .goal import Goal, Handoff, RunLink, Wait
from .orchestration import Orchestration, edge_wire


def node_state(
    node_id: str,
    goal: Goal,
    spec: Orchestration,
    links: list[RunLink],
    statuses: Mapping[str, str],
    waits: list[Wait],
    handoffs: list[Handoff],
) -> str:
    node = spec.node(node_id)
    current = node_id == goal.current_node_id
    if current and node is not None and node.is_terminal:
        return {"completed": "completed", "failed": "failed", "paused": "paused"}.get(
            goal.status, "running"
        )
    if current and goal.status == "paused":
        return "paused"
    node_links = [lk for lk in links if lk.orchestration_node_id == node_id]
    if current:
        for wait in waits:
            if wait.open and any(lk.run_id == wait.run_id for lk in node_links):
                return {"timer": "timer_wait", "external_condition": "external_wait"}.get(
                    wait.wait_kind, "approval"
                )
        outgoing = [h for h in handoffs if h.source_node_id == node_id]
        if any(h.status == "pending_approval" for h in outgoing):
            return "approval"
        if any(h.status in ("approved", "claimed") for h in outgoing):
            return "claiming"
    if not node_links:
        return "not_started"
    status = statuses.get(node_links[-1].run_id, "pending")
    if status in ("completed",):
        return "completed"
    if status in ("failed", "cancelled", "blocked"):
        return "failed"
    if status == "awaiting_approval":
        return "approval"
    if status == "waiting":
        return "external_wait"
    return "running"


def semantic_graph(
    goal: Goal,
    spec: Orchestration,
    links: list[RunLink],
    statuses: Mapping[str, str],
    waits: list[Wait],
    handoffs: list[Handoff],
) -> dict[str, Any]:
    nodes = [
        {
            "node_id": node.node_id,
            "name": node.name,
            "kind": node.kind,
            "state": node_state(node.node_id, goal, spec, links, statuses, waits, handoffs),
            "runs": [
                {"run_id": lk.run_id, "hop_index": lk.hop_index, "status": statuses.get(lk.run_id)}
                for lk in links
                if lk.orchestration_node_id == node.node_id
            ],
        }
        for node in spec.nodes
    ]
    edges = []
    for edge in spec.edges:
        mine = [h for h in handoffs if h.edge_id == edge.edge_id]
        latest = mine[-1] if mine else None
        target = spec.node(edge.to_node_id)
        if (
            latest is None
            and target is not None
            and target.is_terminal
            and goal.current_node_id == target.node_id
        ):
            state = "taken"  # completion settles along a terminal edge without a handoff
        elif latest is None:
            state = (
                "eligible"
                if edge.from_node_id == goal.current_node_id and not goal.terminal
                else "not_started"
            )
        elif latest.status == "consumed":
            state = "taken"
        elif latest.status in ("pending_approval", "approved", "claimed"):
            state = "claiming"
        else:
            state = "not_started"
        edges.append(
            {
                "edge": edge_wire(edge),
                "state": state,
                "handoff_id": latest.handoff_id if latest else None,
            }
        )
    return {"nodes": nodes, "edges": edges, "available": True}


__all__ = ["node_state", "semantic_graph"]
