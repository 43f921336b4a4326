"""Missions: the mission model, its reducer, and the bridge to agent teams."""

from .model import (
    EVENT_FIELDS,
    MISSION_STATUSES,
    WORK_ITEM_STATUSES,
    Mission,
    MissionEvent,
    WorkItem,
    parse_event,
)
from .reducer import reduce
from .repository import MissionRepository
from .service import TOPIC, MissionService

__all__ = [
    "EVENT_FIELDS",
    "MISSION_STATUSES",
    "TOPIC",
    "WORK_ITEM_STATUSES",
    "Mission",
    "MissionEvent",
    "MissionRepository",
    "MissionService",
    "WorkItem",
    "parse_event",
    "reduce",
]
