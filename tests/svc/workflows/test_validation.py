"""Validation of loaded workflow definitions."""

from __future__ import annotations

from svc.tools import ToolRegistry, register_builtins
from svc.workflows.definitions import (
    WorkflowAction,
    WorkflowHook,
    WorkflowRegistry,
    WorkflowSpec,
    WorkflowStep,
)
from svc.workflows.validation import validate_registry


def registry(*specs: WorkflowSpec, hooks: tuple[WorkflowHook, ...] = ()) -> WorkflowRegistry:
    return WorkflowRegistry(workflows={s.workflow_id: s for s in specs}, hooks=hooks)


def builtin_tools() -> ToolRegistry:
    tools = ToolRegistry()
    register_builtins(tools)
    return tools


def findings(reg: WorkflowRegistry) -> list[tuple[str, str | None, str | None]]:
    return [(m.severity, m.step_id, m.field) for m in validate_registry(reg, builtin_tools())]


def test_valid_workflow_has_no_errors() -> None:
    spec = WorkflowSpec(
        "ok",
        "OK",
        steps=(
            WorkflowStep("read_it", "tool:read", {"path": "README.md"}),
            WorkflowStep(
                "review", "approval:gate", {"title": "Look", "rework_targets": ["read_it"]}
            ),
            WorkflowStep("tell", "event:team.told", {"text": "done"}),
            WorkflowStep("agent", "agent:writer", {"prompt": "summarise"}),
        ),
    )
    assert [
        m for m in validate_registry(registry(spec), builtin_tools()) if m.severity != "info"
    ] == []


def test_tool_arguments_are_checked_against_the_tool_schema() -> None:
    spec = WorkflowSpec("bad", "Bad", steps=(WorkflowStep("read_it", "tool:read", {"path": 7}),))
    (message,) = validate_registry(registry(spec), builtin_tools())
    assert (message.severity, message.step_id, message.field) == ("error", "read_it", "with.path")
    assert "with.path must be a string" in message.message


def test_action_problems_are_reported_per_step() -> None:
    spec = WorkflowSpec(
        "w",
        "W",
        steps=(
            WorkflowStep("empty", " "),
            WorkflowStep("gate", "approval:gate", {"title": 42}),
            WorkflowStep("nested", "workflow:other"),
            WorkflowStep("missing_tool", "tool:mcp.github.create_issue"),
            WorkflowStep("loose", "planner"),
            WorkflowStep("no_key", "resource:put:"),
            WorkflowStep(
                "gate2",
                "approval:gate",
                {"decisions": ["approve", "rework"], "rework_targets": ["later"]},
            ),
            WorkflowStep("empty", "event:x"),
        ),
    )
    assert findings(registry(spec)) == [
        ("error", "empty", "action"),
        ("error", "gate", "with.title"),
        ("error", "nested", "action"),
        ("warning", "missing_tool", "action"),
        ("info", "loose", "action"),
        ("error", "no_key", "action"),
        ("error", "gate2", "with.rework_targets[0]"),
        ("error", "empty", "step_id"),
    ]


def test_hooks_must_reference_known_workflows_and_have_actions() -> None:
    spec = WorkflowSpec("demo", "Demo", steps=(WorkflowStep("s", "planner"),))
    hooks = (
        WorkflowHook(
            "missing.task_created", "missing", "task_created", actions=(WorkflowAction("planner"),)
        ),
        WorkflowHook("demo.empty", "demo", "task_created"),
        WorkflowHook("demo.bad", "demo", "x", actions=(WorkflowAction("agent:a", {"prompt": 1}),)),
        WorkflowHook("demo.bad", "demo", "y", actions=(WorkflowAction("planner"),)),
    )
    messages = [
        m
        for m in validate_registry(registry(spec, hooks=hooks), builtin_tools())
        if m.severity != "info"
    ]
    assert [(m.severity, m.field) for m in messages] == [
        ("error", "workflow_id"),
        ("warning", "actions"),
        ("error", "actions[0].with.prompt"),
        ("error", "binding_id"),
    ]
    assert "unknown workflow `missing`" in messages[0].message


def test_workflow_without_steps_or_hooks_warns() -> None:
    assert findings(registry(WorkflowSpec("idle", "Idle"))) == [("warning", None, "steps")]
