"""Who is asking: a human operator, an agent, or another system (from the governance request headers).

The rules are the engine's (the automations domain applies the same ones):
``x-svc-agent-id`` names an agent and always wins; without it, a missing
``x-svc-request-source`` or an interactive source (``control_panel``, ``cli``,
``desktop`` ...) is a human, an agent-like source (``tool_call``,
``orchestrator_runtime``, anything starting with ``agent``, ``tool``,
``automation``, ``orchestrator``, ``mcp`` or ``session`` ...) is an agent, and any
other source is a system. Only humans decide workflow approval gates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

AGENT_ID_HEADER = "x-svc-agent-id"
REQUEST_SOURCE_HEADER = "x-svc-request-source"

HUMAN_SOURCES = frozenset({
    "control_panel", "local_control_panel", "desktop", "cli", "human", "user", "ui", "ui_action", "web_ui",
    "admin", "operator",
})
AGENT_SOURCES = frozenset({"tool_call", "orchestrator_runtime", "spawn", "llm", "model", "workflow_planner"})
AGENT_SOURCE_PREFIXES = ("agent", "tool", "automation", "orchestrator", "mcp", "session")


@attrs.frozen
class Requester:
    kind: Literal["human", "agent", "system"]
    agent_id: str | None = None
    source: str | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "actor_id": self.agent_id, "source": self.source}


HUMAN = Requester("human", source="operator")


def requester_from(agent_id: str | None, source: str | None) -> Requester:
    agent_id = (agent_id or "").strip() or None
    source = (source or "").strip().lower() or None
    if agent_id is not None:
        return Requester("agent", agent_id=agent_id, source=source)
    if source is None or source in HUMAN_SOURCES:
        return Requester("human", source=source or "operator")
    if source in AGENT_SOURCES or source.startswith(AGENT_SOURCE_PREFIXES):
        return Requester("agent", source=source)
    return Requester("system", source=source)


def requester_from_headers(headers: Mapping[str, str]) -> Requester:
    return requester_from(headers.get(AGENT_ID_HEADER), headers.get(REQUEST_SOURCE_HEADER))


__all__ = ["AGENT_ID_HEADER", "HUMAN", "REQUEST_SOURCE_HEADER", "Requester", "requester_from",
           "requester_from_headers"]
