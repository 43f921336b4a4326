"""Automation missions and their reducer events."""

from ..registry import ANY_BODY, OBJECT, op

OPERATIONS = {
    "create_mission": op("Create a mission", body=ANY_BODY, returns=OBJECT),
    "list_missions": op("List missions", returns=OBJECT),
    "get_mission": op("A mission", returns=OBJECT),
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
        returns=OBJECT,
    ),
}
