"""The transition kernel's checks as pure functions: their order, and the goal-policy limits."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from svc.goals.errors import GoalStateConflict, GoalTerminal, InvalidGoalRequest
from svc.goals.goal import Goal
from svc.goals.orchestration import GoalPolicy, Orchestration, parse_spec
from svc.goals.tenancy import TenantContext
from svc.goals.transitions import admit, limit_status, plan_transition
from svc.goals.workflows import WorkflowRun
from tests.svc.goals.specs import linear_spec

PLAN = {"artifact_type": "plan", "value": {"steps": ["a"]}}
SNAPSHOTS = {"wf-plan": {"name": "plan"}, "wf-build": {"name": "build"}}


def hash_of(snapshot: dict[str, Any]) -> str:
    return f"sha256:{snapshot['name']}"


def published() -> Orchestration:
    parsed = parse_spec(linear_spec())
    nodes = [
        attrs.evolve(n, pinned_definition_hash=f"sha256:{n.automation_id.removeprefix('wf-')}")
        if n.is_workflow
        else n
        for n in parsed.nodes
    ]
    return Orchestration(
        orchestration_id="release-loop",
        name="x",
        root_node_id="plan",
        version=1,
        status="published",
        nodes=nodes,
        edges=parsed.edges,
        published_at_ms=1,
    )


def goal_at_plan(**changes: Any) -> Goal:
    goal = Goal(
        goal_id="goal-1",
        orchestration_id="release-loop",
        orchestration_version=1,
        objective="o",
        status="active",
        tenant_context=TenantContext(),
        policy=GoalPolicy(),
        idempotency_key="k",
        created_at_ms=1,
        updated_at_ms=1,
        active_run_id="run-0",
        current_node_id="plan",
    )
    return attrs.evolve(goal, **changes)


def run(status: str = "completed", automation_id: str = "wf-plan") -> WorkflowRun:
    return WorkflowRun(run_id="run-0", automation_id=automation_id, status=status, total_tokens=10)


def check(
    goal: Goal,
    source_run: WorkflowRun | None,
    key: str,
    artifact: dict[str, Any] | None,
    spec: Orchestration | None = None,
    snapshots: dict[str, Any] | None = None,
) -> Any:
    return plan_transition(
        goal,
        spec or published(),
        source_run,
        key,
        artifact,
        SNAPSHOTS if snapshots is None else snapshots,
        hash_of,
    )


def failed_check(*args: Any, **kwargs: Any) -> tuple[type, str]:
    with pytest.raises((InvalidGoalRequest, GoalStateConflict, GoalTerminal)) as caught:
        check(*args, **kwargs)
    return type(caught.value), caught.value.extra["check"]


def test_a_valid_transition_plans_the_edge_and_the_frozen_target() -> None:
    plan = check(goal_at_plan(), run(), "planned", PLAN)
    assert (plan.edge.edge_id, plan.source.node_id, plan.target.node_id) == ("e1", "plan", "build")
    assert plan.target_snapshot == {"name": "build"}


def test_the_source_node_is_checked_first() -> None:
    # Every later check would fail too; the source is reported.
    everything_wrong = ("nope", {"artifact_type": "memo"})
    assert failed_check(goal_at_plan(status="completed"), run(), *everything_wrong) == (
        GoalTerminal,
        "source_node",
    )
    assert failed_check(goal_at_plan(status="paused"), run(), *everything_wrong) == (
        GoalStateConflict,
        "source_node",
    )
    assert failed_check(goal_at_plan(), run("running"), *everything_wrong) == (
        GoalStateConflict,
        "source_node",
    )
    assert failed_check(goal_at_plan(), None, *everything_wrong) == (
        GoalStateConflict,
        "source_node",
    )
    assert failed_check(goal_at_plan(), run(automation_id="wf-build"), *everything_wrong) == (
        InvalidGoalRequest,
        "source_node",
    )
    assert failed_check(goal_at_plan(active_run_id=None), run(), *everything_wrong) == (
        InvalidGoalRequest,
        "source_node",
    )


def test_then_the_key_then_the_artifact_then_the_pin_then_the_tenant() -> None:
    goal = goal_at_plan()
    assert failed_check(goal, run(), "nope", {"artifact_type": "memo"}) == (
        InvalidGoalRequest,
        "transition_key",
    )
    stale_pin = {"wf-build": {"name": "changed"}}
    assert failed_check(goal, run(), "planned", {"artifact_type": "memo"}, snapshots=stale_pin) == (
        InvalidGoalRequest,
        "artifact_contract",
    )
    assert failed_check(goal, run(), "planned", PLAN, snapshots=stale_pin) == (
        InvalidGoalRequest,
        "pin",
    )
    other_version = attrs.evolve(published(), version=2)
    assert failed_check(goal, run(), "planned", PLAN, spec=other_version) == (
        InvalidGoalRequest,
        "pin",
    )
    foreign = {
        **SNAPSHOTS,
        "wf-build": {"name": "build", "metadata": {"tenant_context": {"org_id": "acme"}}},
    }
    assert failed_check(goal, run(), "planned", PLAN, snapshots=foreign) == (
        InvalidGoalRequest,
        "tenant",
    )


def test_targets_that_cannot_run_are_refused_at_the_key_check() -> None:
    spec = published()
    wait_node = attrs.evolve(spec.nodes[1], kind="wait", wait={"kind": "timer", "delay_ms": 1})
    waiting = attrs.evolve(spec, nodes=[spec.nodes[0], wait_node, spec.nodes[2]])
    assert failed_check(goal_at_plan(), run(), "planned", PLAN, spec=waiting) == (
        InvalidGoalRequest,
        "transition_key",
    )
    at_build = goal_at_plan(current_node_id="build")
    assert failed_check(
        at_build, run(automation_id="wf-build"), "done", {"artifact_type": "report", "value": 1}
    ) == (InvalidGoalRequest, "transition_key")


def test_limits_in_order_and_where_they_leave_the_goal() -> None:
    policy = GoalPolicy(
        max_hops=2, deadline_at_ms=1_000, max_total_tokens=100, max_total_cost_usd=1.0
    )
    goal = goal_at_plan(policy=policy)
    assert admit(goal, 999) is None
    assert admit(goal, 1_000) == "deadline"
    assert admit(attrs.evolve(goal, hop_count=2), 0) == "hop_limit"
    assert admit(attrs.evolve(goal, hop_count=1), 0) is None  # max_hops transitions are allowed
    assert admit(goal, 0, add_tokens=101) == "token_limit"
    assert admit(goal, 0, add_tokens=100) is None
    assert admit(attrs.evolve(goal, total_cost_usd=0.75), 0, add_cost_usd=0.5) == "cost_limit"
    assert limit_status(policy, "hop_limit") == "paused"
    failing = attrs.evolve(policy, on_limit="fail")
    assert (limit_status(failing, "hop_limit"), limit_status(failing, "deadline")) == (
        "failed",
        "expired",
    )
