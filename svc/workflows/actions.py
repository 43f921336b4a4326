"""What a workflow action string means, and the input each kind accepts.

Action strings:

=============================  ==============================================
``approval:gate`` pause the run until a human approves (``with``: title, instructions, decisions,
rework_targets)
``event:<type>``               publish an event of that type (``with``: its payload)
``resource:put:<key>``         store ``with`` as a shared resource value
``resource:patch:<key>``       merge ``with`` into the stored object
``resource:delete:<key>``      delete the resource
``tool:<name>``                call a registered tool with ``with`` as its arguments
``agent:<agent_id>`` run an agent turn in a new session (``with``: prompt, provider_id, model_id,
tools, system)
``capability:<id>`` or ``<id>`` the tool of that name if one is registered, else an agent step told
to perform it
``workflow:<id>``              nested workflows: recognised, not supported (a validation error)
=============================  ==============================================
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import attrs

ActionKind = Literal[
    "approval_gate",
    "event_emit",
    "resource_put",
    "resource_patch",
    "resource_delete",
    "tool",
    "agent",
    "capability",
    "workflow",
]

GATE_DECISIONS = ("approve", "rework", "cancel")

APPROVAL_GATE_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "title": {"type": "string"},
        "instructions": {"type": "string"},
        "decisions": {"type": "array", "items": {"type": "string", "enum": list(GATE_DECISIONS)}},
        "rework_targets": {"type": "array", "items": {"type": "string"}},
    },
}

AGENT_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "prompt": {"type": "string", "minLength": 1},
        "provider_id": {"type": "string"},
        "model_id": {"type": "string"},
        "tools": {"type": "array", "items": {"type": "string"}},
        "system": {"type": "string"},
    },
}

OBJECT_SCHEMA: Mapping[str, Any] = {"type": "object"}

_PREFIXED: tuple[tuple[str, ActionKind, str], ...] = (
    ("event:", "event_emit", "an event type"),
    ("resource:put:", "resource_put", "a resource key"),
    ("resource:patch:", "resource_patch", "a resource key"),
    ("resource:delete:", "resource_delete", "a resource key"),
    ("tool:", "tool", "a tool name"),
    ("agent:", "agent", "an agent id"),
    ("capability:", "capability", "a capability id"),
    ("workflow:", "workflow", "a workflow id"),
)


class ActionInvalid(ValueError):
    """The action string cannot be understood."""


@attrs.frozen
class ParsedAction:
    kind: ActionKind
    target: str
    """The event type, resource key, tool name, agent id, capability or workflow id ('' for a gate).
    """

    @property
    def schema(self) -> Mapping[str, Any] | None:
        """The ``with`` schema of built-in kinds (tools and capabilities use the tool's own)."""
        if self.kind == "approval_gate":
            return APPROVAL_GATE_SCHEMA
        if self.kind == "agent":
            return AGENT_SCHEMA
        if self.kind in ("event_emit", "resource_put", "resource_patch"):
            return OBJECT_SCHEMA
        return None


def parse_action(action: str) -> ParsedAction:
    """Classify an action string; raise :class:`ActionInvalid` when it is empty or lacks its
    target."""
    text = action.strip()
    if not text:
        raise ActionInvalid("the action is empty")
    if text in ("approval:gate", "approval.gate"):
        return ParsedAction("approval_gate", "")
    for prefix, kind, label in _PREFIXED:
        if text.startswith(prefix):
            target = text[len(prefix) :].strip()
            if not target:
                raise ActionInvalid(f"action `{text}` is missing {label}")
            return ParsedAction(kind, target)
    return ParsedAction("capability", text)


def objective_for(action: str, payload: Any) -> str:
    """The instruction an agent gets for an action it performs (and a preview node's objective)."""
    if payload is None or payload == {}:
        return f"Execute workflow action `{action}`."
    rendered = json.dumps(payload, sort_keys=True, default=str)
    return f"Execute workflow action `{action}` with payload {rendered}."


__all__ = [
    "AGENT_SCHEMA",
    "APPROVAL_GATE_SCHEMA",
    "GATE_DECISIONS",
    "ActionInvalid",
    "ActionKind",
    "ParsedAction",
    "objective_for",
    "parse_action",
]
