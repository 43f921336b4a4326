"""What every workflow event carries: the ``workflows`` topic and the run's identifying
properties."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runs import WorkflowRun

TOPIC = "workflows"


def event_base(run: WorkflowRun) -> dict[str, Any]:
    """Properties every event about ``run`` carries."""
    props: dict[str, Any] = {"runID": run.run_id, "workflowID": run.workflow_id}
    if run.binding_id is not None:
        props["bindingID"] = run.binding_id
    if run.task_id is not None:
        props["taskID"] = run.task_id
    if run.hook_chain:
        props["hookChain"] = list(run.hook_chain)
    return props


__all__ = ["TOPIC", "event_base"]
