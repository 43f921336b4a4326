"""Who is asking: the principal of a request to automations (SPEC 5.5).

The principal comes from two headers: ``x-svc-agent-id`` names an agent (and
wins over any source); ``x-svc-request-source`` says where the call comes from.
``control_panel`` (and the other interactive sources) is a human; agent-like
sources (``agent``, ``tool_call``, ``orchestrator_runtime``, ...) are agents. A
request with neither is the operator's and counts as human.

Routines are for humans only: an agent creating or running one gets 403
``ROUTINE_REQUIRES_HUMAN`` (agents use automations v2).

A principal is a plain record, not an actor of the actor kernel.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from .errors import RoutineRequiresHuman

PrincipalKind = Literal["human", "agent", "system"]

HUMAN_SOURCES = frozenset(
    {
        "control_panel",
        "local_control_panel",
        "desktop",
        "cli",
        "human",
        "user",
        "ui",
        "ui_action",
        "web_ui",
        "admin",
        "operator",
    }
)
AGENT_SOURCES = frozenset(
    {"tool_call", "orchestrator_runtime", "spawn", "llm", "model", "workflow_planner"}
)
AGENT_SOURCE_PREFIXES = ("agent", "tool", "automation", "orchestrator", "mcp", "session")


@attrs.frozen
class Principal:
    kind: PrincipalKind
    agent_id: str | None = None
    source: str | None = None
    lineage: tuple[str, ...] = ()
    """Ancestor agent ids (``x-svc-agent-ancestor-ids``), oldest first."""

    @property
    def is_agent(self) -> bool:
        return self.kind == "agent"

    @property
    def depth(self) -> int:
        return len(self.lineage) + 1 if self.is_agent else 0

    def provenance(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "agent_id": self.agent_id,
            "source": self.source,
            "lineage": list(self.lineage),
            "depth": self.depth,
        }


HUMAN = Principal("human", source="operator")


def resolve_principal(
    agent_id: str | None, request_source: str | None, ancestor_ids: str | None = None
) -> Principal:
    lineage = tuple(a.strip() for a in (ancestor_ids or "").split(",") if a.strip())
    source = (request_source or "").strip().lower() or None
    agent = (agent_id or "").strip() or None
    if agent is not None:
        return Principal("agent", agent, source, lineage)
    if source is None or source in HUMAN_SOURCES:
        return Principal("human", None, source or "operator")
    if source in AGENT_SOURCES or source.startswith(AGENT_SOURCE_PREFIXES):
        return Principal("agent", None, source, lineage)
    return Principal("system", None, source)


def require_human(principal: Principal, action: str) -> None:
    """Routines are created, run and decided by humans only."""
    if principal.is_agent:
        raise RoutineRequiresHuman(
            f"Routine {action} requires a human actor; agents must use automations v2",
            agentID=principal.agent_id,
            requestSource=principal.source,
        )


resolve_actor = resolve_principal
"""The former name, kept while ``svc.workflows.requester`` still imports it."""


__all__ = [
    "AGENT_SOURCES",
    "AGENT_SOURCE_PREFIXES",
    "HUMAN",
    "HUMAN_SOURCES",
    "Principal",
    "PrincipalKind",
    "require_human",
    "resolve_actor",
    "resolve_principal",
]
