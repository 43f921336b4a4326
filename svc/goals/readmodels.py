"""Read models of a goal: budgets, graph, runs, artifacts, handoffs and waits.

Pure shaping of records already loaded; the service loads and the routes format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .goal import Goal, Handoff, RunLink, Wait
from .orchestration import Orchestration, edge_wire
from .workflows import WorkflowRun


def budgets(goal: Goal, now_ms: int, *, with_deadline: bool = True) -> dict[str, Any]:
    policy = goal.policy
    remaining: dict[str, Any] = {
        "hops": max(0, policy.max_hops - goal.hop_count),
        "tokens": max(0, policy.max_total_tokens - goal.total_tokens)
        if policy.max_total_tokens is not None
        else None,
        "cost_usd": max(0.0, round(policy.max_total_cost_usd - goal.total_cost_usd, 10))
        if policy.max_total_cost_usd is not None
        else None,
    }
    if with_deadline:
        remaining["deadline_ms"] = (
            max(0, policy.deadline_at_ms - now_ms) if policy.deadline_at_ms is not None else None
        )
    return {
        "policy": policy.to_wire(),
        "consumed": {
            "hops": goal.hop_count,
            "total_tokens": goal.total_tokens,
            "total_cost_usd": goal.total_cost_usd,
        },
        "remaining": remaining,
    }


def flow_node_ids(snapshot: Mapping[str, Any] | None) -> list[str]:
    """The node ids of an automation definition's flow, in declared order."""
    flow = (snapshot or {}).get("flow") or {}
    nodes = flow.get("nodes") if isinstance(flow, Mapping) else None
    return [
        str(n.get("node_id")) for n in nodes or [] if isinstance(n, Mapping) and n.get("node_id")
    ]


def workflow_progress(run: WorkflowRun, snapshot: Mapping[str, Any] | None) -> dict[str, Any]:
    declared = flow_node_ids(snapshot)
    completed = [n for n in declared if n in run.node_outputs] or list(run.node_outputs)
    pending = [n for n in declared if n not in run.node_outputs]
    current = pending[0] if pending else (completed[-1] if completed else None)
    return {"completed_nodes": completed, "pending_nodes": pending, "current_node_id": current}


def current_workflow(
    goal: Goal, runs: Mapping[str, WorkflowRun | None], snapshots: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any] | None:
    run = runs.get(goal.active_run_id or "")
    if run is None:
        return None
    progress = workflow_progress(run, snapshots.get(run.automation_id))
    return {
        "run_id": run.run_id,
        "automation_id": run.automation_id,
        "status": run.status,
        "current_node_id": progress["current_node_id"],
        "completed_nodes": len(progress["completed_nodes"]),
        "pending_nodes": len(progress["pending_nodes"]),
    }


def run_status(link: RunLink, runs: Mapping[str, WorkflowRun | None], waits: list[Wait]) -> str:
    """A linked run's status; a run held by a wait before it starts reads ``waiting``."""
    run = runs.get(link.run_id)
    if run is not None:
        return run.status
    if any(w.run_id == link.run_id and w.open for w in waits):
        return "waiting"
    if any(w.run_id == link.run_id and w.status in ("cancelled", "timed_out") for w in waits):
        return "cancelled"
    return "pending"


def graph(
    goal: Goal,
    spec: Orchestration,
    links: list[RunLink],
    runs: Mapping[str, WorkflowRun | None],
    waits: list[Wait],
    snapshots: Mapping[str, Mapping[str, Any]],
    now_ms: int,
) -> dict[str, Any]:
    visited = {link.orchestration_node_id for link in links}
    nodes = []
    for node in spec.nodes:
        if node.node_id == goal.current_node_id:
            state = "current"
        elif node.node_id in visited:
            state = "visited"
        else:
            state = "not_started"
        nodes.append(
            {
                "node_id": node.node_id,
                "name": node.name,
                "kind": node.kind_wire(),
                "state": state,
                "runs": [
                    {
                        "run_id": lk.run_id,
                        "hop_index": lk.hop_index,
                        "parent_run_id": lk.parent_run_id,
                        "triggering_handoff_id": lk.triggering_handoff_id,
                        "status": run_status(lk, runs, waits),
                    }
                    for lk in links
                    if lk.orchestration_node_id == node.node_id
                ],
            }
        )
    return {
        "goal_id": goal.goal_id,
        "status": goal.status,
        "orchestration_id": goal.orchestration_id,
        "orchestration_version": goal.orchestration_version,
        "current_node_id": goal.current_node_id,
        "current_workflow": current_workflow(goal, runs, snapshots),
        "nodes": nodes,
        "edges": [edge_wire(e) for e in spec.edges],
        "budgets": budgets(goal, now_ms),
    }


def runs_view(
    goal: Goal, links: list[RunLink], runs: Mapping[str, WorkflowRun | None]
) -> dict[str, Any]:
    items = [
        {
            "link": lk.to_wire(),
            "run": (r.to_wire() if (r := runs.get(lk.run_id)) is not None else None),
        }
        for lk in links
    ]
    return {
        "goal_id": goal.goal_id,
        "active_run_id": goal.active_run_id,
        "runs": items,
        "count": len(items),
    }


def artifacts_view(goal: Goal, handoffs: list[Handoff]) -> dict[str, Any]:
    items = [
        {
            "artifact": h.artifact,
            "handoff_id": h.handoff_id,
            "transition_key": h.transition_key,
            "source_run_id": h.source_run_id,
            "consumed_by_run_id": h.consumed_by_run_id,
            "created_at_ms": h.created_at_ms,
        }
        for h in handoffs
    ]
    return {
        "goal_id": goal.goal_id,
        "artifacts": items,
        "final_artifact": goal.final_artifact,
        "count": len(items),
    }


def handoffs_view(goal: Goal, handoffs: list[Handoff]) -> dict[str, Any]:
    return {
        "goal_id": goal.goal_id,
        "handoffs": [h.to_wire() for h in handoffs],
        "count": len(handoffs),
    }


def waits_view(goal: Goal, waits: list[Wait], links: list[RunLink]) -> dict[str, Any]:
    linked = {lk.run_id for lk in links}
    items = [w.to_wire() for w in waits if w.run_id in linked]
    return {"goal_id": goal.goal_id, "waits": items, "count": len(items)}


__all__ = [
    "artifacts_view",
    "budgets",
    "current_workflow",
    "flow_node_ids",
    "graph",
    "handoffs_view",
    "run_status",
    "runs_view",
    "waits_view",
    "workflow_progress",
]
