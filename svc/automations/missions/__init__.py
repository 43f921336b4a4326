"""Missions: the mission model, its reducer, and the bridge to agent teams."""

from __future__ import annotations

from ...lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".model": [
            "EVENT_FIELDS",
            "MISSION_STATUSES",
            "WORK_ITEM_STATUSES",
            "Mission",
            "MissionEvent",
            "WorkItem",
            "parse_event",
        ],
        ".reducer": [
            "reduce",
        ],
        ".repository": [
            "MissionRepository",
        ],
        ".service": [
            "TOPIC",
            "MissionService",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
