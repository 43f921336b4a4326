"""Workflow and hook definitions from parsed YAML documents.

A workflow file::

    workflow:
      id: build_feature            # or workflow_id; default: the file name
      name: Build Feature
      description: ...
      enabled: true
      automation_id: nightly       # optional: running the workflow runs this automation v2
      steps:
        - planner                  # a bare action (step id step_1)
        - id: verify
          action: tool:read
          with: {path: README.md}
      hooks:                       # event -> actions, or a list of bindings
        task_created:
          - kanban.update
          - action: event:team.notified
            with: {channel: eng}

A hook file holds ``hooks:`` as a list of ``{id?, workflow, event, enabled?, actions}``.

Every problem raises :class:`~svc.workflows.yaml_lines.DefinitionError` naming the field and,
where the document knows it, the line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .definitions import WorkflowAction, WorkflowHook, WorkflowSourceRef, WorkflowSpec, WorkflowStep
from .yaml_lines import DefinitionError, item_line, key_line, line_of, plain


def parse_definition_file(
    document: Any, path: Path, ref: WorkflowSourceRef, *, role: str
) -> tuple[WorkflowSpec | None, list[WorkflowHook]]:
    """A file's workflow (if any) and its standalone hook bindings.

    ``role`` is ``workflow`` (under ``workflows/``), ``hooks`` (under ``hooks/``)
    or ``any`` (a top-level file: a workflow when it has a ``workflow`` key).
    """
    if document is None:
        raise DefinitionError("the file is empty")
    if not isinstance(document, Mapping):
        raise DefinitionError(
            "the document must be a mapping with a `workflow` or `hooks` key",
            line=line_of(document),
        )
    unknown = sorted(set(document) - {"workflow", "hooks"})
    if unknown:
        raise DefinitionError(
            f"unknown top-level key `{unknown[0]}` (expected `workflow` or `hooks`)",
            line=key_line(document, unknown[0]),
            field=unknown[0],
        )
    if role == "hooks" or (role == "any" and "workflow" not in document):
        if "workflow" in document:
            raise DefinitionError(
                "a hook file holds only `hooks`; put workflows under `workflows/`",
                line=key_line(document, "workflow"),
                field="workflow",
            )
        if "hooks" not in document:
            raise DefinitionError("a hook file needs a `hooks` key", line=line_of(document))
        return None, _hooks(
            document["hooks"],
            default_workflow="",
            ref=ref,
            field="hooks",
            line=key_line(document, "hooks"),
        )
    if "workflow" not in document:
        raise DefinitionError("missing `workflow` key", line=line_of(document))
    spec = _workflow(
        document["workflow"],
        path,
        ref,
        top_hooks=document.get("hooks"),
        line=key_line(document, "workflow"),
        hooks_line=key_line(document, "hooks"),
    )
    return spec, []


_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


def _workflow(
    raw: Any,
    path: Path,
    ref: WorkflowSourceRef,
    *,
    top_hooks: Any,
    line: int | None,
    hooks_line: int | None,
) -> WorkflowSpec:
    if not isinstance(raw, Mapping):
        raise DefinitionError(
            "`workflow` must be a mapping", line=line_of(raw) or line, field="workflow"
        )
    allowed = {
        "id",
        "workflow_id",
        "name",
        "description",
        "enabled",
        "steps",
        "hooks",
        "automation_id",
    }
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise DefinitionError(
            f"unknown key `workflow.{unknown[0]}`",
            line=key_line(raw, unknown[0]),
            field=f"workflow.{unknown[0]}",
        )
    workflow_id = (
        _opt_str(raw, "workflow_id", "workflow") or _opt_str(raw, "id", "workflow") or path.stem
    )
    workflow_id = workflow_id.strip()
    if not _ID.match(workflow_id):
        raise DefinitionError(
            f"workflow id `{workflow_id}` must start with a letter or digit and use only letters, "
            "digits, `_`, `.`, `-`",
            line=key_line(raw, "workflow_id" if "workflow_id" in raw else "id"),
            field="workflow.id",
        )
    name = (_opt_str(raw, "name", "workflow") or workflow_id).strip() or workflow_id
    description = _opt_str(raw, "description", "workflow")
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise DefinitionError(
            "`workflow.enabled` must be true or false",
            line=key_line(raw, "enabled"),
            field="workflow.enabled",
        )
    automation_id = _opt_str(raw, "automation_id", "workflow")
    steps = _steps(raw.get("steps"), line=key_line(raw, "steps"))
    if raw.get("hooks") is not None:
        hooks_raw, hooks_line = raw.get("hooks"), key_line(raw, "hooks")
    else:
        hooks_raw = top_hooks
    hooks = _hooks(
        hooks_raw, default_workflow=workflow_id, ref=ref, field="workflow.hooks", line=hooks_line
    )
    for hook in hooks:
        if hook.workflow_id != workflow_id:
            raise DefinitionError(
                f"hook `{hook.binding_id}` inside workflow `{workflow_id}` names another workflow "
                f"`{hook.workflow_id}`; put it in a hook file instead",
                line=hook.line,
                field="workflow.hooks",
            )
    return WorkflowSpec(
        workflow_id=workflow_id,
        name=name,
        description=description,
        enabled=enabled,
        steps=tuple(steps),
        hooks=tuple(hooks),
        source=ref,
        automation_id=automation_id.strip() if automation_id else None,
        line=line_of(raw),
    )


def _opt_str(raw: Mapping[str, Any], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DefinitionError(
            f"`{where}.{key}` must be a string", line=key_line(raw, key), field=f"{where}.{key}"
        )
    return str(value)


def _steps(raw: Any, *, line: int | None) -> list[WorkflowStep]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise DefinitionError(
            "`workflow.steps` must be a list", line=line_of(raw) or line, field="workflow.steps"
        )
    steps = []
    for index, item in enumerate(raw):
        field = f"workflow.steps[{index}]"
        default_id = f"step_{index + 1}"
        if isinstance(item, str):
            steps.append(
                WorkflowStep(step_id=default_id, action=item.strip(), line=item_line(raw, index))
            )
            continue
        if not isinstance(item, Mapping):
            raise DefinitionError(
                f"`{field}` must be an action name or a mapping",
                line=item_line(raw, index),
                field=field,
            )
        unknown = sorted(set(item) - {"id", "step_id", "action", "with"})
        if unknown:
            raise DefinitionError(
                f"unknown key `{field}.{unknown[0]}`",
                line=key_line(item, unknown[0]),
                field=f"{field}.{unknown[0]}",
            )
        action = item.get("action")
        if not isinstance(action, str):
            raise DefinitionError(
                f"`{field}.action` is required and must be a string",
                line=key_line(item, "action"),
                field=f"{field}.action",
            )
        step_id = _opt_str(item, "step_id", field) or _opt_str(item, "id", field) or default_id
        steps.append(
            WorkflowStep(
                step_id=step_id.strip(),
                action=action.strip(),
                with_=plain(item.get("with")),
                line=line_of(item),
            )
        )
    return steps


def _action(item: Any, field: str, line: int | None) -> WorkflowAction:
    if isinstance(item, str):
        return WorkflowAction(item.strip())
    if not isinstance(item, Mapping):
        raise DefinitionError(
            f"`{field}` must be an action name or a mapping", line=line, field=field
        )
    unknown = sorted(set(item) - {"action", "with"})
    if unknown:
        raise DefinitionError(
            f"unknown key `{field}.{unknown[0]}`",
            line=key_line(item, unknown[0]),
            field=f"{field}.{unknown[0]}",
        )
    action = item.get("action")
    if not isinstance(action, str):
        raise DefinitionError(
            f"`{field}.action` is required and must be a string",
            line=key_line(item, "action"),
            field=f"{field}.action",
        )
    return WorkflowAction(action.strip(), plain(item.get("with")))


def _actions(raw: Any, field: str, line: int | None) -> tuple[WorkflowAction, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise DefinitionError(
            f"`{field}` must be a list of actions", line=line_of(raw) or line, field=field
        )
    return tuple(_action(item, f"{field}[{i}]", item_line(raw, i)) for i, item in enumerate(raw))


def normalize_ident(text: str) -> str:
    return re.sub(r"[\s/.]+", "_", text.strip().lower())


def _hooks(
    raw: Any,
    *,
    default_workflow: str,
    ref: WorkflowSourceRef,
    field: str,
    line: int | None = None,
) -> list[WorkflowHook]:
    if raw is None:
        return []
    prefix = default_workflow or "workflow"
    hooks: list[WorkflowHook] = []
    if isinstance(raw, Mapping):
        for key, actions in raw.items():
            event = str(key).strip()
            event_line = key_line(raw, key)
            if not event:
                raise DefinitionError(
                    f"`{field}` has an empty event name", line=event_line, field=field
                )
            hooks.append(
                WorkflowHook(
                    binding_id=f"{prefix}.{normalize_ident(event)}",
                    workflow_id=default_workflow,
                    event=event,
                    enabled=True,
                    actions=_actions(actions, f"{field}.{event}", event_line),
                    source=ref,
                    line=event_line,
                )
            )
        return hooks
    if not isinstance(raw, list):
        raise DefinitionError(
            f"`{field}` must be a mapping of event to actions or a list of bindings",
            line=line_of(raw) or line,
            field=field,
        )
    for index, item in enumerate(raw):
        where = f"{field}[{index}]"
        if not isinstance(item, Mapping):
            raise DefinitionError(
                f"`{where}` must be a mapping", line=item_line(raw, index), field=where
            )
        allowed = {"id", "binding_id", "workflow", "workflow_id", "event", "enabled", "actions"}
        unknown = sorted(set(item) - allowed)
        if unknown:
            raise DefinitionError(
                f"unknown key `{where}.{unknown[0]}`",
                line=key_line(item, unknown[0]),
                field=f"{where}.{unknown[0]}",
            )
        raw_event = item.get("event")
        if not isinstance(raw_event, str) or not raw_event.strip():
            raise DefinitionError(
                f"`{where}.event` is required",
                line=key_line(item, "event"),
                field=f"{where}.event",
            )
        event = raw_event
        workflow_id = (
            _opt_str(item, "workflow_id", where)
            or _opt_str(item, "workflow", where)
            or default_workflow
        ).strip()
        if not workflow_id:
            raise DefinitionError(
                f"`{where}.workflow` is required in a hook file",
                line=line_of(item),
                field=f"{where}.workflow",
            )
        enabled = item.get("enabled", True)
        if not isinstance(enabled, bool):
            raise DefinitionError(
                f"`{where}.enabled` must be true or false",
                line=key_line(item, "enabled"),
                field=f"{where}.enabled",
            )
        binding_id = (
            _opt_str(item, "binding_id", where)
            or _opt_str(item, "id", where)
            or f"{workflow_id}.{normalize_ident(event)}"
        ).strip()
        hooks.append(
            WorkflowHook(
                binding_id=binding_id,
                workflow_id=workflow_id,
                event=event.strip(),
                enabled=enabled,
                actions=_actions(item.get("actions"), f"{where}.actions", line_of(item)),
                source=ref,
                line=line_of(item),
            )
        )
    return hooks


__all__ = ["normalize_ident", "parse_definition_file"]
