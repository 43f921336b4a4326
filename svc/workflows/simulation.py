"""Which hooks an event would trigger: the one matching rule, used by the dispatcher and by
simulate.

An event is known under several *canonical names*: its type, the type with dots
turned into underscores, and a short alias for a few lifecycle events
(``workflow.run.completed`` is also ``workflow_completed``). A hook's ``event``
matches when it equals one of these names, ignoring case, or when it ends in
``*`` and is a prefix of one (``workflow.run.*``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import attrs

from .definitions import WorkflowAction, WorkflowHook, WorkflowRegistry

_ALIASES: Mapping[str, tuple[str, ...]] = {
    "context.task.created": ("task_created",),
    "context.task.started": ("task_started",),
    "context.task.completed": ("task_completed",),
    "context.task.failed": ("task_failed",),
    "workflow.run.started": ("workflow_started",),
    "routine.run.created": ("workflow_started",),
    "workflow.run.completed": ("workflow_completed",),
    "routine.run.completed": ("workflow_completed",),
    "workflow.run.failed": ("task_failed",),
    "routine.run.failed": ("task_failed",),
    "session.run.finished": ("run_finished",),
}


TYPE_CACHE_SIZE = 4096


@lru_cache(maxsize=4096)
def canonical_event_names(event_type: str) -> tuple[str, ...]:
    names = {event_type, event_type.replace(".", "_"), *_ALIASES.get(event_type, ())}
    return tuple(sorted(names))


def hook_matches(hook_event: str, names: Iterable[str]) -> bool:
    expected = hook_event.strip().lower()
    if not expected:
        return False
    if expected.endswith("*"):
        prefix = expected[:-1]
        return any(name.lower().startswith(prefix) for name in names)
    return any(name.lower() == expected for name in names)


def hook_active(registry: WorkflowRegistry, hook: WorkflowHook) -> bool:
    """A hook fires when it is enabled and its workflow exists and is enabled."""
    workflow = registry.workflows.get(hook.workflow_id)
    return hook.enabled and workflow is not None and workflow.enabled


class HookIndex:
    """Active hooks by lowercased event name, plus the wildcard ones: a cheap per-event lookup."""

    def __init__(
        self, hooks: Iterable[WorkflowHook], registry: WorkflowRegistry | None = None
    ) -> None:
        self.exact: dict[str, list[WorkflowHook]] = {}
        self.wildcard: list[WorkflowHook] = []
        self._by_type: dict[str, tuple[WorkflowHook, ...]] = {}
        for hook in hooks:
            if not hook.enabled or (registry is not None and not hook_active(registry, hook)):
                continue
            key = hook.event.strip().lower()
            if key.endswith("*"):
                self.wildcard.append(hook)
            elif key:
                self.exact.setdefault(key, []).append(hook)

    def __bool__(self) -> bool:
        return bool(self.exact or self.wildcard)

    def match(self, event_type: str) -> tuple[WorkflowHook, ...]:
        """The active hooks an event of this type triggers (memoized: it runs for every event in the
        log)."""
        found = self._by_type.get(event_type)
        if found is None:
            if len(self._by_type) >= TYPE_CACHE_SIZE:
                self._by_type.clear()
            found = self._by_type[event_type] = self._match(event_type)
        return found

    def _match(self, event_type: str) -> tuple[WorkflowHook, ...]:
        if not self:
            return ()
        names = canonical_event_names(event_type)
        found: list[WorkflowHook] = []
        seen: set[str] = set()
        for name in names:
            for hook in self.exact.get(name.lower(), ()):
                if hook.binding_id not in seen:
                    seen.add(hook.binding_id)
                    found.append(hook)
        for hook in self.wildcard:
            if hook.binding_id not in seen and hook_matches(hook.event, names):
                seen.add(hook.binding_id)
                found.append(hook)
        return tuple(sorted(found, key=lambda h: h.binding_id))


@attrs.frozen
class Simulation:
    matched_bindings: tuple[WorkflowHook, ...]
    planned_actions: tuple[WorkflowAction, ...]
    canonical_events: tuple[str, ...]
    skipped_bindings: tuple[WorkflowHook, ...] = ()
    """Bindings that match the event but are disabled (or whose workflow is disabled or unknown)."""

    def to_wire(self) -> dict[str, Any]:
        return {
            "matched_bindings": [h.to_wire() for h in self.matched_bindings],
            "planned_actions": [a.to_wire() for a in self.planned_actions],
            "canonical_events": list(self.canonical_events),
            "skipped_bindings": [h.to_wire() for h in self.skipped_bindings],
        }


def simulate(registry: WorkflowRegistry, event_type: str) -> Simulation:
    """What an event of ``event_type`` would trigger; no side effects."""
    names = canonical_event_names(event_type)
    matching = [h for h in registry.hooks_for() if hook_matches(h.event, names)]
    matched = tuple(h for h in matching if hook_active(registry, h))
    return Simulation(
        matched_bindings=matched,
        planned_actions=tuple(a for h in matched for a in h.actions),
        canonical_events=names,
        skipped_bindings=tuple(h for h in matching if not hook_active(registry, h)),
    )


__all__ = [
    "HookIndex",
    "Simulation",
    "canonical_event_names",
    "hook_active",
    "hook_matches",
    "simulate",
]
