"""The governance state humans set per agent (table ``automations_agent_governance``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


@attrs.frozen
class AgentState:
    agent_id: str
    creation_paused: bool = False
    paused_reason: str | None = None
    reviewed_creations: int = 0
    quota_override_until_ms: int | None = None
    capability_grants: Mapping[str, int | None] = attrs.field(factory=dict)
    updated_at_ms: int = 0

    def to_wire(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "creation_paused": self.creation_paused,
            "paused_reason": self.paused_reason,
            "reviewed_creations": self.reviewed_creations,
            "quota_override_until_ms": self.quota_override_until_ms,
            "capability_grants": dict(self.capability_grants),
            "updated_at_ms": self.updated_at_ms,
        }


__all__ = ["AgentState"]
