"""Automation missions and their reducer events."""

from ..records.missions import MISSION_ENVELOPE, MISSION_EVENT_RESULT, MISSIONS
from ..registry import ANY_BODY, op

OPERATIONS = {
    "create_mission": op("Create a mission", body=ANY_BODY, returns=MISSION_ENVELOPE),
    "list_missions": op("List missions", returns=MISSIONS),
    "get_mission": op("A mission", returns=MISSION_ENVELOPE),
    "mission_event": op(
        "Apply an event to a mission: the mission, its commands and the orchestrator keys",
        body={
            "type": "object",
            "properties": {
                "event": {
                    "type": "object",
                    "properties": {"type": {"type": "string"}, "mission_id": {"type": "string"}},
                    "required": ["type", "mission_id"],
                }
            },
            "required": ["event"],
        },
        returns=MISSION_EVENT_RESULT,
    ),
}
