"""Who is asking: a human operator or an agent (from the governance request headers).

``x-svc-agent-id`` names an agent and always wins; otherwise an agent-like
``x-svc-request-source`` marks the request as an agent's. Everything else,
including the control panel's default source ``control_panel``, is a human.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

AGENT_ID_HEADER = "x-svc-agent-id"
REQUEST_SOURCE_HEADER = "x-svc-request-source"

_AGENT_SOURCES = frozenset({"tool_call", "orchestrator_runtime", "automation", "workflow", "mission", "mcp"})


@attrs.frozen
class Requester:
    kind: Literal["human", "agent"]
    agent_id: str | None = None
    source: str | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "actor_id": self.agent_id, "source": self.source}


HUMAN = Requester("human", source="control_panel")


def requester_from(agent_id: str | None, source: str | None) -> Requester:
    agent_id = (agent_id or "").strip() or None
    source = (source or "").strip() or None
    if agent_id is not None:
        return Requester("agent", agent_id=agent_id, source=source)
    if source is not None:
        lowered = source.lower()
        if "agent" in lowered or lowered in _AGENT_SOURCES:
            return Requester("agent", source=source)
    return Requester("human", source=source or "control_panel")


def requester_from_headers(headers: Mapping[str, str]) -> Requester:
    return requester_from(headers.get(AGENT_ID_HEADER), headers.get(REQUEST_SOURCE_HEADER))


__all__ = ["AGENT_ID_HEADER", "HUMAN", "REQUEST_SOURCE_HEADER", "Requester", "requester_from",
           "requester_from_headers"]
