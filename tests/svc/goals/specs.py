"""Orchestration bodies shared by the goal tests."""

from __future__ import annotations

from typing import Any


def linear_spec(
    *,
    orchestration_id: str = "release-loop",
    plan: str = "wf-plan",
    build: str = "wf-build",
    review: str | None = None,
    approval_on: str | None = None,
    wait: dict[str, Any] | None = None,
    goal_policy: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """plan -planned-> build [-built-> review] -done-> finish (terminal)."""
    nodes: list[dict[str, Any]] = [
        {
            "node_id": "plan",
            "name": "Plan",
            "kind": "workflow",
            "automation_id": plan,
            "allowed_transition_keys": ["planned"],
            "emits_artifact_types": ["plan"],
        },
        {
            "node_id": "build",
            "name": "Build",
            "kind": "workflow",
            "automation_id": build,
            "allowed_transition_keys": ["built"] if review else ["done"],
            "accepts_artifact_types": ["plan"],
        },
    ]
    edges: list[dict[str, Any]] = [
        {
            "edge_id": "e1",
            "from_node_id": "plan",
            "to_node_id": "build",
            "transition_key": "planned",
            "artifact_contract": {"artifact_type": "plan", "required": True},
        },
    ]
    last = "build"
    last_key = "done"
    if review:
        nodes.append(
            {
                "node_id": "review",
                "name": "Review",
                "kind": "workflow",
                "automation_id": review,
                "allowed_transition_keys": ["done"],
                "accepts_artifact_types": ["build_report"],
            }
        )
        edges.append(
            {
                "edge_id": "e2",
                "from_node_id": "build",
                "to_node_id": "review",
                "transition_key": "built",
                "artifact_contract": {"artifact_type": "build_report", "required": True},
            }
        )
        last = "review"
    nodes.append(
        {
            "node_id": "finish",
            "name": "Done",
            "kind": "terminal",
            "outcome": "complete",
            "final_artifact_type": "report",
        }
    )
    edges.append(
        {
            "edge_id": "e9",
            "from_node_id": last,
            "to_node_id": "finish",
            "transition_key": last_key,
            "artifact_contract": {"artifact_type": "report", "required": True},
        }
    )
    for edge in edges:
        if edge["edge_id"] == approval_on:
            edge["approval"] = {"required": True}
    if wait is not None:
        target = next(n for n in nodes if n["node_id"] == ("review" if review else "build"))
        target["wait"] = wait
    body: dict[str, Any] = {
        "orchestration_id": orchestration_id,
        "name": "Plan, build, done",
        "root_node_id": "plan",
        "nodes": nodes,
        "edges": edges,
    }
    if goal_policy is not None:
        body["goal_policy"] = goal_policy
    return body
