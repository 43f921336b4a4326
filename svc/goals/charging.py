"""Charging a workflow run's usage to its goal, once per run."""

from __future__ import annotations

from typing import Any

from .goal import Goal
from .workflows import WorkflowRun


def usage_of(goal: Goal, run: WorkflowRun) -> tuple[int, float]:
    """The run's usage not yet charged to the goal (each run is charged once)."""
    if run.run_id in goal.charged_run_ids:
        return 0, 0.0
    return run.total_tokens, run.estimated_cost_usd


def charged(goal: Goal, run: WorkflowRun) -> dict[str, Any]:
    """The goal's usage fields with the run charged (nothing when it already was)."""
    tokens, cost = usage_of(goal, run)
    if run.run_id in goal.charged_run_ids:
        return {}
    return {
        "total_tokens": goal.total_tokens + tokens,
        "total_cost_usd": round(goal.total_cost_usd + cost, 10),
        "charged_run_ids": (*goal.charged_run_ids, run.run_id),
    }


__all__ = ["charged", "usage_of"]
