"""The transition kernel's checks, as pure functions, in the order they are applied.

A named transition moves a goal from its current workflow node along one edge to the
next workflow node. The checks run in this order and the first failure is the answer:

1. **source node**: the goal is not terminal or paused, has an active run, sits on a
   workflow node, and that run is completed;
2. **transition key**: an edge leaves the current node with this key, the node declares the
   key, and the target is a workflow node (terminal targets use the completion path);
3. **artifact contract**: the artifact's shape, the edge's contract and what the target accepts;
4. **pin**: the goal's orchestration version is published and the target workflow is pinned
   to a frozen definition;
5. **tenant**: the goal, the orchestration and the target workflow share a tenant;
6. **approval**: an approval-gated edge needs an approved handoff (decided in the actor);
7. **limits**: deadline, hops, tokens and cost (:func:`admit`).

Every failure raises a domain error whose ``check`` field names the step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from .artifacts import contract_problems, shape_problems
from .errors import GoalStateConflict, GoalTerminal, InvalidGoalRequest
from .goal import Goal
from .orchestration import Edge, GoalPolicy, Node, Orchestration
from .tenancy import TenantContext
from .workflows import WorkflowRun, tenant_of_spec

Limit = Literal["deadline", "hop_limit", "token_limit", "cost_limit", "wait_timeout"]

TERMINAL_OUTCOME_STATUS = {"complete": "completed", "pause": "paused", "fail": "failed"}


@attrs.frozen
class TransitionPlan:
    """What a transition that passed checks 1 to 5 would do."""

    edge: Edge
    source: Node
    target: Node
    target_snapshot: Mapping[str, Any]


def check_goal_open(goal: Goal) -> None:
    if goal.terminal:
        raise GoalTerminal(
            "terminal goals cannot emit transitions", goal_status=goal.status, check="source_node"
        )


def check_source(goal: Goal, spec: Orchestration, source_run: WorkflowRun | None) -> Node:
    """Check 1: the goal can leave its current node."""
    check_goal_open(goal)
    if goal.status == "paused":
        raise GoalStateConflict(
            "paused goals reject new handoffs; resume the goal first", check="source_node"
        )
    if goal.active_run_id is None:
        raise InvalidGoalRequest("the goal has no active run to hand off from", check="source_node")
    node = spec.node(goal.current_node_id)
    if node is None or not node.is_workflow:
        raise InvalidGoalRequest(
            "the goal's current node is not a workflow node", check="source_node"
        )
    if not node.allowed_transition_keys:
        raise InvalidGoalRequest(
            "the goal's current node declares no transition keys", check="source_node"
        )
    if source_run is None:
        raise GoalStateConflict(
            "the goal's active run has not started yet",
            check="source_node",
            run_id=goal.active_run_id,
            run_status=None,
        )
    if source_run.automation_id != node.automation_id:
        raise InvalidGoalRequest(
            "the active run does not belong to the current workflow node", check="source_node"
        )
    if source_run.status != "completed":
        raise GoalStateConflict(
            f"the source run must be completed before a handoff (it is {source_run.status})",
            check="source_node",
            run_id=source_run.run_id,
            run_status=source_run.status,
        )
    return node


def check_transition_key(
    spec: Orchestration, source: Node, transition_key: str
) -> tuple[Edge, Node]:
    """Check 2: an edge with this key leaves the current node towards a workflow node."""
    edge = spec.edge_for(source.node_id, transition_key)
    if edge is None or transition_key not in source.allowed_transition_keys:
        raise InvalidGoalRequest(
            "transition is not allowed from the goal current node",
            check="transition_key",
            transition_key=transition_key,
            node_id=source.node_id,
        )
    target = spec.node(edge.to_node_id)
    if target is None:
        raise InvalidGoalRequest("the edge's target node does not exist", check="transition_key")
    if target.kind == "wait":
        raise InvalidGoalRequest(
            "a wait node cannot be the target of a run",
            check="transition_key",
            node_id=target.node_id,
        )
    if target.is_terminal:
        raise InvalidGoalRequest(
            "terminal transitions use the completion path (POST /goals/{id}/completion)",
            check="transition_key",
            node_id=target.node_id,
        )
    return edge, target


def check_artifact(artifact: Mapping[str, Any] | None, edge: Edge, target: Node) -> None:
    """Check 3: the artifact's shape, the edge's contract and what the target accepts."""
    problems = list(shape_problems(artifact)) if artifact is not None else []
    problems.extend(contract_problems(artifact, edge.artifact_contract))
    if (
        artifact is not None
        and target.accepts_artifact_types
        and artifact.get("artifact_type") not in target.accepts_artifact_types
    ):
        problems.append(
            f"node {target.node_id!r} does not accept artifact type "
            f"{artifact.get('artifact_type')!r}"
        )
    if problems:
        raise InvalidGoalRequest(
            "artifact rejected: " + "; ".join(problems),
            check="artifact_contract",
            problems=problems,
            edge_id=edge.edge_id,
        )


def check_pin(
    goal: Goal,
    spec: Orchestration,
    target: Node,
    snapshots: Mapping[str, Mapping[str, Any]],
    hash_of: Any,
) -> Mapping[str, Any]:
    """Check 4: the goal runs the published version it was started on, and the target's frozen
    definition."""
    if spec.status == "draft" or spec.version != goal.orchestration_version:
        raise InvalidGoalRequest(
            "the goal is not pinned to this orchestration version", check="pin"
        )
    pinned = target.pinned_definition_hash
    snapshot = snapshots.get(target.automation_id or "")
    if not pinned or snapshot is None or hash_of(snapshot) != pinned:
        raise InvalidGoalRequest(
            "target workflow definition is stale; revalidate and republish",
            check="pin",
            node_id=target.node_id,
        )
    return snapshot


def check_tenant(goal: Goal, spec: Orchestration, snapshot: Mapping[str, Any]) -> None:
    """Check 5: one tenant for the goal, its orchestration and the target workflow."""
    tenants: list[TenantContext] = [spec.tenant_context, tenant_of_spec(snapshot)]
    if any(t.key() != goal.tenant_context.key() for t in tenants):
        raise InvalidGoalRequest(
            "the goal, its orchestration and the target workflow must share a tenant",
            check="tenant",
        )


def plan_transition(
    goal: Goal,
    spec: Orchestration,
    source_run: WorkflowRun | None,
    transition_key: str,
    artifact: Mapping[str, Any] | None,
    snapshots: Mapping[str, Mapping[str, Any]],
    hash_of: Any,
) -> TransitionPlan:
    """Checks 1 to 5, in order."""
    source = check_source(goal, spec, source_run)
    edge, target = check_transition_key(spec, source, transition_key)
    check_artifact(artifact, edge, target)
    snapshot = check_pin(goal, spec, target, snapshots, hash_of)
    check_tenant(goal, spec, snapshot)
    return TransitionPlan(edge, source, target, snapshot)


def admit(
    goal: Goal, now_ms: int, *, add_tokens: int = 0, add_cost_usd: float = 0.0
) -> Limit | None:
    """Check 7: the first goal-policy limit this transition would break, else None."""
    policy = goal.policy
    if policy.deadline_at_ms is not None and now_ms >= policy.deadline_at_ms:
        return "deadline"
    if goal.hop_count >= policy.max_hops:
        return "hop_limit"
    if (
        policy.max_total_tokens is not None
        and goal.total_tokens + add_tokens > policy.max_total_tokens
    ):
        return "token_limit"
    if (
        policy.max_total_cost_usd is not None
        and goal.total_cost_usd + add_cost_usd > policy.max_total_cost_usd
    ):
        return "cost_limit"
    return None


def limit_status(policy: GoalPolicy, limit: Limit) -> str:
    """Where a limit leaves the goal: paused for review, or failed (a missed deadline
    expires it)."""
    if policy.on_limit == "pause_for_review":
        return "paused"
    return "expired" if limit == "deadline" else "failed"


def check_completion_target(
    spec: Orchestration, source: Node, transition_key: str
) -> tuple[Edge, Node]:
    """Completion: the key's edge must lead from the current node to a terminal node."""
    edge = spec.edge_for(source.node_id, transition_key)
    if edge is None:
        raise InvalidGoalRequest(
            "transition is not allowed from the goal current node",
            check="transition_key",
            transition_key=transition_key,
            node_id=source.node_id,
        )
    target = spec.node(edge.to_node_id)
    if target is None or not target.is_terminal:
        raise InvalidGoalRequest(
            "completion must follow an edge to a terminal node; use /transitions otherwise",
            check="transition_key",
        )
    return edge, target


def check_final_artifact(artifact: Mapping[str, Any] | None, edge: Edge, target: Node) -> None:
    problems = list(shape_problems(artifact)) if artifact is not None else []
    problems.extend(contract_problems(artifact, edge.artifact_contract))
    if target.final_artifact_type is not None:
        if artifact is None:
            problems.append(
                "the terminal node requires a final artifact of type "
                f"{target.final_artifact_type!r}"
            )
        elif artifact.get("artifact_type") != target.final_artifact_type:
            problems.append(f"final_artifact.artifact_type must be {target.final_artifact_type!r}")
    if problems:
        raise InvalidGoalRequest(
            "final artifact rejected: " + "; ".join(problems),
            check="artifact_contract",
            problems=problems,
            edge_id=edge.edge_id,
        )


__all__ = [
    "TERMINAL_OUTCOME_STATUS",
    "Limit",
    "TransitionPlan",
    "admit",
    "check_artifact",
    "check_completion_target",
    "check_final_artifact",
    "check_goal_open",
    "check_pin",
    "check_source",
    "check_tenant",
    "check_transition_key",
    "limit_status",
    "plan_transition",
]
