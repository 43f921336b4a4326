"""Publishing agent-team events with their common properties.

Every agent-team event carries ``sessionID``, ``messageID``, ``runID``,
``missionID``, ``instanceID`` and ``timestampMs`` (absent values are null),
plus its own fields; all of them go on the ``agent-team`` topic as well as
the session's stream.
"""

from __future__ import annotations

from typing import Any

from ..clock import Clock
from ..events import EventLog

TOPIC = "agent-team"

SPAWN_REQUESTED = "agent_team.spawn.requested"
SPAWN_DENIED = "agent_team.spawn.denied"
SPAWN_APPROVED = "agent_team.spawn.approved"
INSTANCE_STARTED = "agent_team.instance.started"
INSTANCE_COMPLETED = "agent_team.instance.completed"
INSTANCE_FAILED = "agent_team.instance.failed"
INSTANCE_CANCELLED = "agent_team.instance.cancelled"
BUDGET_USAGE = "agent_team.budget.usage"
BUDGET_EXHAUSTED = "agent_team.budget.exhausted"
MISSION_BUDGET_EXHAUSTED = "agent_team.mission.budget.exhausted"
CAPABILITY_DENIED = "agent_team.capability.denied"

ENDED_EVENTS = {
    "completed": INSTANCE_COMPLETED,
    "failed": INSTANCE_FAILED,
    "cancelled": INSTANCE_CANCELLED,
}


class TeamEvents:
    def __init__(self, events: EventLog, clock: Clock) -> None:
        self._events = events
        self._clock = clock

    def publish(
        self,
        type: str,
        *,
        session_id: str | None = None,
        message_id: str | None = None,
        run_id: str | None = None,
        mission_id: str | None = None,
        instance_id: str | None = None,
        **extra: Any,
    ) -> None:
        properties: dict[str, Any] = {
            "sessionID": session_id,
            "messageID": message_id,
            "runID": run_id,
            "missionID": mission_id,
            "instanceID": instance_id,
            **extra,
            "timestampMs": self._clock.now_ms(),
        }
        self._events.publish(type, properties, topic=TOPIC)


__all__ = [
    "BUDGET_EXHAUSTED",
    "BUDGET_USAGE",
    "CAPABILITY_DENIED",
    "ENDED_EVENTS",
    "INSTANCE_CANCELLED",
    "INSTANCE_COMPLETED",
    "INSTANCE_FAILED",
    "INSTANCE_STARTED",
    "MISSION_BUDGET_EXHAUSTED",
    "SPAWN_APPROVED",
    "SPAWN_DENIED",
    "SPAWN_REQUESTED",
    "TOPIC",
    "TeamEvents",
]
