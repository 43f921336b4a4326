"""Check a loaded registry: structure, actions and their inputs, hook references.

Messages are ``error`` (the definition cannot run as written), ``warning``
(it will run, but probably not as meant: an unknown tool that may appear when an
MCP connector connects, a hook with no actions) or ``info``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ValidationFailed
from ..tools import ToolRegistry, validate_args
from .actions import ActionInvalid, parse_action
from .definitions import (
    Severity,
    ValidationMessage,
    WorkflowAction,
    WorkflowHook,
    WorkflowRegistry,
    WorkflowSpec,
)


def validate_registry(
    registry: WorkflowRegistry, tools: ToolRegistry | None = None
) -> list[ValidationMessage]:
    messages: list[ValidationMessage] = []
    hooked = {h.workflow_id for h in registry.hooks}
    for spec in registry.sorted_workflows():
        messages.extend(_validate_workflow(spec, tools, has_hooks=spec.workflow_id in hooked))
    seen: dict[str, WorkflowHook] = {}
    for hook in registry.hooks:
        where: dict[str, Any] = dict(
            source_path=hook.source.path if hook.source else None,
            workflow_id=hook.workflow_id,
            line=hook.line,
        )
        if hook.binding_id in seen:
            messages.append(
                ValidationMessage(
                    "error",
                    f"hook binding id `{hook.binding_id}` is defined more than once",
                    field="binding_id",
                    **where,
                )
            )
        seen[hook.binding_id] = hook
        target = registry.workflows.get(hook.workflow_id)
        if target is None:
            messages.append(
                ValidationMessage(
                    "error",
                    f"hook `{hook.binding_id}` references unknown workflow `{hook.workflow_id}`",
                    field="workflow_id",
                    **where,
                )
            )
        if not hook.actions:
            messages.append(
                ValidationMessage(
                    "warning", f"hook `{hook.binding_id}` has no actions", field="actions", **where
                )
            )
        for index, action in enumerate(hook.actions):
            for severity, text, field in check_action(action, tools, step_ids=None):
                messages.append(
                    ValidationMessage(
                        severity,
                        f"hook `{hook.binding_id}` action `{action.action}`: {text}",
                        field=f"actions[{index}].{field}",
                        **where,
                    )
                )
    return messages


def _validate_workflow(
    spec: WorkflowSpec, tools: ToolRegistry | None, *, has_hooks: bool
) -> list[ValidationMessage]:
    found: list[ValidationMessage] = []
    base: dict[str, Any] = dict(source_path=spec.source_path, workflow_id=spec.workflow_id)
    if not spec.steps and not has_hooks and spec.automation_id is None:
        found.append(
            ValidationMessage(
                "warning",
                f"workflow `{spec.workflow_id}` has no steps and no hook bindings",
                field="steps",
                line=spec.line,
                **base,
            )
        )
    if spec.automation_id is not None and spec.steps:
        found.append(
            ValidationMessage(
                "warning",
                f"workflow `{spec.workflow_id}` maps to automation `{spec.automation_id}`; "
                "its steps are not run by `POST /workflows/{id}/run`",
                field="automation_id",
                line=spec.line,
                **base,
            )
        )
    step_ids: list[str] = []
    for step in spec.steps:
        where: dict[str, Any] = dict(step_id=step.step_id or None, line=step.line, **base)
        if not step.step_id:
            found.append(
                ValidationMessage(
                    "error",
                    f"workflow `{spec.workflow_id}` has a step with an empty step_id",
                    field="step_id",
                    **where,
                )
            )
        elif step.step_id in step_ids:
            found.append(
                ValidationMessage(
                    "error",
                    f"workflow `{spec.workflow_id}` defines step `{step.step_id}` more than once",
                    field="step_id",
                    **where,
                )
            )
        for severity, text, field in check_action(step.as_action(), tools, step_ids=step_ids):
            found.append(
                ValidationMessage(
                    severity,
                    f"workflow `{spec.workflow_id}` step `{step.step_id}`: {text}",
                    field=field,
                    **where,
                )
            )
        step_ids.append(step.step_id)
    return found


def check_action(
    action: WorkflowAction, tools: ToolRegistry | None, *, step_ids: list[str] | None
) -> list[tuple[Severity, str, str]]:
    """``(severity, message, field)`` findings for one action.

    ``step_ids`` are the ids of the steps before this one (a gate may only send
    work back to them); ``None`` for hook actions, whose ids are positional.
    """
    try:
        parsed = parse_action(action.action)
    except ActionInvalid as exc:
        return [("error", str(exc), "action")]
    found: list[tuple[Severity, str, str]] = []
    if parsed.kind == "workflow":
        return [
            (
                "error",
                "nested workflow actions are not supported; list the steps here or use a hook",
                "action",
            )
        ]
    schema = parsed.schema
    tool = None
    if parsed.kind in ("tool", "capability") and tools is not None:
        tool = tools.get(parsed.target)
        if tool is None and parsed.kind == "tool":
            found.append(
                (
                    "warning",
                    f"tool `{parsed.target}` is not registered (yet); the step fails if it is "
                    "still missing when it runs",
                    "action",
                )
            )
        elif tool is None:
            found.append(
                (
                    "info",
                    f"no tool is named `{parsed.target}`: an agent performs this step",
                    "action",
                )
            )
        else:
            schema = tool.input_schema
    if schema is not None:
        problem = _check_with(schema, action.with_)
        if problem is not None:
            found.append(("error", problem[0], problem[1]))
    if parsed.kind == "approval_gate" and isinstance(action.with_, Mapping):
        targets = action.with_.get("rework_targets") or []
        decisions = action.with_.get("decisions") or []
        if "rework" in decisions and not targets:
            found.append(
                ("error", "the `rework` decision needs `with.rework_targets`", "with.decisions")
            )
        if step_ids is not None and isinstance(targets, list):
            for index, target in enumerate(targets):
                if isinstance(target, str) and target not in step_ids:
                    found.append(
                        (
                            "error",
                            f"rework target `{target}` is not an earlier step of this workflow",
                            f"with.rework_targets[{index}]",
                        )
                    )
    return found


def _check_with(schema: Mapping[str, Any], value: Any) -> tuple[str, str] | None:
    if value is None:
        if schema.get("required"):
            return "`with` is required for this action", "with"
        return None
    try:
        validate_args(schema, value)
    except ValidationFailed as exc:
        field = str(exc.extra.get("field") or "args")
        message = (
            exc.message.replace("args", "with", 1)
            if exc.message.startswith("args")
            else exc.message
        )
        return message, "with" + field[len("args") :]
    return None


def has_errors(messages: list[ValidationMessage]) -> bool:
    return any(m.severity == "error" for m in messages)


__all__ = ["check_action", "has_errors", "validate_registry"]
