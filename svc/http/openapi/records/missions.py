"""Records of work missions (``/mission``)."""

from __future__ import annotations

from ..registry import Record
from .common import BOOL, INT, OBJ, STR, STRS, array_of, obj, of

WORK_ITEM = Record(
    "WorkItem",
    obj(
        {
            "work_item_id": STR,
            "title": STR,
            "status": STR,
            "depends_on": STRS,
            "artifact_refs": STRS,
        },
        {"detail": STR, "assigned_agent": STR, "run_id": STR, "metadata": OBJ},
    ),
)
MISSION = Record(
    "Mission",
    obj(
        {
            "mission_id": STR,
            "status": STR,
            "spec": obj({}, {"mission_id": STR, "title": STR, "goal": STR}),
            "work_items": array_of(WORK_ITEM),
            "revision": INT,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        }
    ),
)
MISSION_ENVELOPE = Record("MissionEnvelope", obj({"mission": of(MISSION)}))
MISSIONS = Record("Missions", obj({"missions": array_of(MISSION), "count": INT}))
MISSION_EVENT_RESULT = Record(
    "MissionEventResult",
    obj(
        {
            "mission": of(MISSION),
            "commands": array_of(obj({"type": STR})),
            "orchestratorSpawns": array_of(OBJ),
            "orchestratorCancellations": obj(
                {"triggered": BOOL, "cancelledInstances": INT}, {"reason": STR}
            ),
        }
    ),
)

RECORDS = (WORK_ITEM, MISSION, MISSION_ENVELOPE, MISSIONS, MISSION_EVENT_RESULT)
