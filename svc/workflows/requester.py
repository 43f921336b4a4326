"""Who is asking: a human operator, an agent, or another system.

The engine has one rule for the governance request headers
(``x-svc-agent-id``, ``x-svc-request-source``): the automations domain's
:func:`svc.automations.resolve_actor`. A workflow requester is that actor, so a
gate refuses exactly the callers automations governance treats as agents or
systems: only humans decide workflow approval gates.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

import attrs

from ..automations import resolve_actor

AGENT_ID_HEADER = "x-svc-agent-id"
REQUEST_SOURCE_HEADER = "x-svc-request-source"


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


def requester_from(agent_id: str | None, source: str | None) -> Requester:
    actor = resolve_actor(agent_id, source)
    return Requester(actor.kind, agent_id=actor.agent_id, source=actor.source)


class HeaderLookup(Protocol):
    """What is read of request headers (a mapping, or werkzeug's ``Headers``)."""

    def get(self, key: str, /) -> str | None: ...


def requester_from_headers(headers: HeaderLookup) -> Requester:
    return requester_from(headers.get(AGENT_ID_HEADER), headers.get(REQUEST_SOURCE_HEADER))


__all__ = [
    "AGENT_ID_HEADER",
    "REQUEST_SOURCE_HEADER",
    "Requester",
    "requester_from",
    "requester_from_headers",
]
