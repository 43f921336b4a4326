"""Workflow definitions: workflows, their steps, and the hooks that bind events to actions.

A workflow is a named list of steps; a step runs one *action*. A hook binds an
event name to a list of actions of a workflow, so the engine runs them when a
matching event is published. Definitions come from YAML files (see
:mod:`svc.workflows.loading`); these records are what the rest of the package
and the routes work with. Every record has a ``to_wire()`` giving the JSON
shape of the HTTP API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

SourceKind = Literal["built_in", "workspace", "pack"]


@attrs.frozen
class WorkflowSourceRef:
    """Where a definition was loaded from."""

    kind: SourceKind
    path: str | None = None
    pack_id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"kind": self.kind}
        if self.pack_id is not None:
            wire["pack_id"] = self.pack_id
        if self.path is not None:
            wire["path"] = self.path
        return wire


@attrs.frozen
class WorkflowAction:
    """One action: ``action`` names what to do, ``with_`` (wire ``with``) its input."""

    action: str
    with_: Any = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"action": self.action}
        if self.with_ is not None:
            wire["with"] = self.with_
        return wire


@attrs.frozen
class WorkflowStep:
    step_id: str
    action: str
    with_: Any = None
    line: int | None = attrs.field(default=None, eq=False)
    """1-based line of the step in its file, for validation messages."""

    def as_action(self) -> WorkflowAction:
        return WorkflowAction(self.action, self.with_)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"step_id": self.step_id, "action": self.action}
        if self.with_ is not None:
            wire["with"] = self.with_
        return wire


@attrs.frozen
class WorkflowHook:
    """A binding of an event name to actions of a workflow."""

    binding_id: str
    workflow_id: str
    event: str
    enabled: bool = True
    actions: tuple[WorkflowAction, ...] = ()
    source: WorkflowSourceRef | None = None
    line: int | None = attrs.field(default=None, eq=False)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "binding_id": self.binding_id,
            "workflow_id": self.workflow_id,
            "event": self.event,
            "enabled": self.enabled,
            "actions": [a.to_wire() for a in self.actions],
        }
        if self.source is not None:
            wire["source"] = self.source.to_wire()
        return wire


@attrs.frozen
class WorkflowSpec:
    workflow_id: str
    name: str
    description: str | None = None
    enabled: bool = True
    steps: tuple[WorkflowStep, ...] = ()
    hooks: tuple[WorkflowHook, ...] = ()
    source: WorkflowSourceRef | None = None
    automation_id: str | None = None
    """An automation v2 this workflow maps to: running the workflow runs that automation."""
    line: int | None = attrs.field(default=None, eq=False)

    @property
    def source_path(self) -> str | None:
        return self.source.path if self.source is not None else None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "workflow_id": self.workflow_id,
            "name": self.name,
            "enabled": self.enabled,
            "steps": [s.to_wire() for s in self.steps],
            "hooks": [h.to_wire() for h in self.hooks],
        }
        if self.description is not None:
            wire["description"] = self.description
        if self.automation_id is not None:
            wire["automation_id"] = self.automation_id
        if self.source is not None:
            wire["source"] = self.source.to_wire()
        return wire


@attrs.frozen
class WorkflowRegistry:
    """Every loaded workflow (by id) and every hook binding, in load order."""

    workflows: Mapping[str, WorkflowSpec] = attrs.field(factory=dict)
    hooks: tuple[WorkflowHook, ...] = ()

    def sorted_workflows(self) -> list[WorkflowSpec]:
        return [self.workflows[k] for k in sorted(self.workflows)]

    def hooks_for(self, workflow_id: str | None = None) -> list[WorkflowHook]:
        found = [h for h in self.hooks if workflow_id is None or h.workflow_id == workflow_id]
        return sorted(found, key=lambda h: h.binding_id)

    def hook(self, binding_id: str) -> WorkflowHook | None:
        return next((h for h in self.hooks if h.binding_id == binding_id), None)

    def with_hook_overrides(self, overrides: Mapping[str, bool]) -> WorkflowRegistry:
        """Apply persisted ``enabled`` overrides and re-attach hooks to their workflows."""
        hooks = tuple(
            attrs.evolve(h, enabled=overrides[h.binding_id]) if h.binding_id in overrides else h
            for h in self.hooks
        )
        by_workflow: dict[str, list[WorkflowHook]] = {}
        for hook in hooks:
            by_workflow.setdefault(hook.workflow_id, []).append(hook)
        workflows = {
            wid: attrs.evolve(
                spec, hooks=tuple(sorted(by_workflow.get(wid, ()), key=lambda h: h.binding_id))
            )
            for wid, spec in self.workflows.items()
        }
        return WorkflowRegistry(workflows=workflows, hooks=hooks)

    def to_wire(self) -> dict[str, Any]:
        return {
            "workflows": {wid: self.workflows[wid].to_wire() for wid in sorted(self.workflows)},
            "hooks": [h.to_wire() for h in self.hooks_for()],
        }


Severity = Literal["info", "warning", "error"]


@attrs.frozen
class ValidationMessage:
    """A finding about the loaded definitions (``POST /workflows/validate``)."""

    severity: Severity
    message: str
    source_path: str | None = None
    workflow_id: str | None = None
    step_id: str | None = None
    field: str | None = None
    line: int | None = None
    column: int | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"severity": self.severity, "message": self.message}
        for name in ("source_path", "workflow_id", "step_id", "field", "line", "column"):
            value = getattr(self, name)
            if value is not None:
                wire[name] = value
        return wire


__all__ = [
    "Severity",
    "SourceKind",
    "ValidationMessage",
    "WorkflowAction",
    "WorkflowHook",
    "WorkflowRegistry",
    "WorkflowSourceRef",
    "WorkflowSpec",
    "WorkflowStep",
]
