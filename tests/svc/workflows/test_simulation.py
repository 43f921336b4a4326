"""Which hooks an event triggers."""

from __future__ import annotations

from svc.workflows.definitions import WorkflowAction, WorkflowHook, WorkflowRegistry, WorkflowSpec
from svc.workflows.simulation import HookIndex, canonical_event_names, simulate

HOOKS = (
    WorkflowHook("w.task_created", "w", "task_created", actions=(WorkflowAction("planner"),)),
    WorkflowHook(
        "w.exact", "w", "Context.Task.Created", actions=(WorkflowAction("event:x", {"a": 1}),)
    ),
    WorkflowHook("w.wild", "w", "workflow.run.*", actions=(WorkflowAction("kanban.update"),)),
    WorkflowHook(
        "w.off", "w", "task_created", enabled=False, actions=(WorkflowAction("verifier.run"),)
    ),
)
REGISTRY = WorkflowRegistry(workflows={"w": WorkflowSpec("w", "W")}, hooks=HOOKS)


def test_canonical_names_include_underscored_type_and_aliases() -> None:
    assert canonical_event_names("context.task.created") == (
        "context.task.created",
        "context_task_created",
        "task_created",
    )
    assert canonical_event_names("workflow.run.completed") == (
        "workflow.run.completed",
        "workflow_completed",
        "workflow_run_completed",
    )


def test_simulation_lists_enabled_matches_their_actions_and_disabled_ones() -> None:
    result = simulate(REGISTRY, "context.task.created")
    assert [h.binding_id for h in result.matched_bindings] == ["w.exact", "w.task_created"]
    assert [a.action for a in result.planned_actions] == ["event:x", "planner"]
    assert [h.binding_id for h in result.skipped_bindings] == ["w.off"]
    wire = result.to_wire()
    assert wire["canonical_events"] == [
        "context.task.created",
        "context_task_created",
        "task_created",
    ]
    assert wire["planned_actions"][0] == {"action": "event:x", "with": {"a": 1}}


def test_wildcard_hooks_match_by_prefix() -> None:
    assert [h.binding_id for h in simulate(REGISTRY, "workflow.run.failed").matched_bindings] == [
        "w.wild"
    ]
    assert simulate(REGISTRY, "workflowxrun").matched_bindings == ()


def test_hook_index_matches_like_simulation() -> None:
    index = HookIndex(HOOKS)
    for event_type in (
        "context.task.created",
        "workflow.run.started",
        "task_created",
        "session.created",
    ):
        expected = [h.binding_id for h in simulate(REGISTRY, event_type).matched_bindings]
        assert [h.binding_id for h in index.match(event_type)] == expected
    assert not HookIndex(h for h in HOOKS if not h.enabled)
