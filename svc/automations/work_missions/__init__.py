"""Work missions: the mission model (work items), its reducer, and the bridge to agent teams.

Named apart from the agent-teams missions (:mod:`svc.teams`), which are groups of
agent instances; a work mission may spawn such instances through the bridge. The
wire keeps the plain name (``/mission``, ``mission_id``, ``mission.updated``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...lazy import LazyExports

if TYPE_CHECKING:
    from .model import (
        EVENT_FIELDS as EVENT_FIELDS,
    )
    from .model import (
        MISSION_STATUSES as MISSION_STATUSES,
    )
    from .model import (
        WORK_ITEM_STATUSES as WORK_ITEM_STATUSES,
    )
    from .model import (
        WorkItem as WorkItem,
    )
    from .model import (
        WorkMission as WorkMission,
    )
    from .model import (
        WorkMissionEvent as WorkMissionEvent,
    )
    from .model import (
        parse_event as parse_event,
    )
    from .reducer import reduce as reduce
    from .repository import WorkMissionRepository as WorkMissionRepository
    from .service import TOPIC as TOPIC
    from .service import WorkMissionService as WorkMissionService

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
