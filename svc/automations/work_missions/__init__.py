"""Work missions: the mission model (work items), its reducer, and the bridge to agent teams.

Named apart from the agent-teams missions (:mod:`svc.teams`), which are groups of
agent instances; a work mission may spawn such instances through the bridge. The
wire keeps the plain name (``/mission``, ``mission_id``, ``mission.updated``).
"""

from __future__ import annotations

from ...lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".model": [
            "EVENT_FIELDS",
            "MISSION_STATUSES",
            "WORK_ITEM_STATUSES",
            "WorkMission",
            "WorkMissionEvent",
            "WorkItem",
            "parse_event",
        ],
        ".reducer": [
            "reduce",
        ],
        ".repository": [
            "WorkMissionRepository",
        ],
        ".service": [
            "TOPIC",
            "WorkMissionService",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
