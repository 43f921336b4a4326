"""Records of routines (``/routines``) and automations v1 (``/automations``).

One set of views serves both prefixes: a routine answer names the routine
(``routine_id``, ``routines``), an automation answer the automation (``automation_id``,
``automations``). The records state what both have and, where the key differs, that one
of the two is present.
"""

from __future__ import annotations

from typing import Any

from ..registry import Record
from .common import BOOL, INT, NULL_INT, NULL_STR, OBJ, STR, STRS, array_of, obj, of

_CLIENT_RUN_STATUS = {"enum": ["queued", "running", "succeeded", "failed", "canceled", "unknown"]}


def either(first: str, second: str) -> dict[str, Any]:
    """One of the two keys is present (the routine's or the automation's)."""
    return {"anyOf": [{"required": [first]}, {"required": [second]}]}


ROUTINE = Record(
    "Routine",
    {
        **obj(
            {
                "id": STR,
                "name": STR,
                "status": {"enum": ["enabled", "paused", "unknown"]},
                "state": STR,
                "schedule": {},
                "timezone": {},
                "mode": {},
                "created_at_ms": INT,
                "updated_at_ms": INT,
                "next_fire_at_ms": NULL_INT,
                "last_fired_at_ms": NULL_INT,
            },
            {"routine_id": STR, "automation_id": STR},
        ),
        **either("routine_id", "automation_id"),
    },
)
ROUTINE_RUN = Record(
    "RoutineRun",
    {
        **obj(
            {
                "run_id": STR,
                "trigger_type": STR,
                "run_count": INT,
                "status": STR,
                "created_at_ms": INT,
                "updated_at_ms": INT,
                "fired_at_ms": INT,
                "started_at_ms": NULL_INT,
                "finished_at_ms": NULL_INT,
            },
            {"routine_id": STR, "automation_id": STR},
        ),
        **either("routine_id", "automation_id"),
    },
)
ROUTINES = Record(
    "Routines",
    {
        **obj(
            {"count": INT},
            {"routines": array_of(ROUTINE), "automations": array_of(ROUTINE)},
        ),
        **either("routines", "automations"),
    },
)
ROUTINE_ENVELOPE = Record(
    "RoutineEnvelope",
    {
        **obj({}, {"routine": of(ROUTINE), "automation": of(ROUTINE)}),
        **either("routine", "automation"),
    },
)
ROUTINE_PATCHED = Record(
    "RoutinePatched",
    {"allOf": [of(ROUTINE), of(ROUTINE_ENVELOPE)]},
)
ROUTINE_DELETED = Record(
    "RoutineDeleted",
    obj(
        {},
        {"ok": BOOL, "automation": of(ROUTINE), "deleted": BOOL, "routineID": STR},
    ),
)
_LINKS = {"contextRunID": STR, "linked_context_run_id": STR}
ROUTINE_ARTIFACT = Record(
    "RoutineArtifact",
    obj(
        {"artifact_id": STR, "uri": STR, "kind": STR, "created_at_ms": INT},
        {"label": STR, "metadata": OBJ},
    ),
)
RUN_NOW = Record(
    "RoutineRunNow",
    obj(
        {"ok": BOOL, "status": _CLIENT_RUN_STATUS, "run_status": STR, "runID": STR, **_LINKS},
        {
            "run": of(ROUTINE_RUN),
            "runs": array_of(ROUTINE_RUN),
            "run_id": STR,
            "routineID": STR,
            "runIDs": STRS,
            "runCount": INT,
            "firedAtMs": INT,
        },
    ),
)
ROUTINE_HISTORY = Record(
    "RoutineHistory",
    obj(
        {
            "events": array_of(OBJ),
            "history": array_of(obj({"event": STR, "ts_ms": NULL_INT})),
            "count": INT,
        },
        {"routineID": STR, "automationID": STR},
    ),
)
ROUTINE_RUNS = Record(
    "RoutineRuns",
    obj(
        {"runs": array_of(ROUTINE_RUN), "count": INT},
        {"routineID": STR, "automationID": STR},
    ),
)
ROUTINE_RUN_DETAIL = Record(
    "RoutineRunDetail",
    obj(
        {
            "id": STR,
            "run_id": STR,
            "status": _CLIENT_RUN_STATUS,
            "run_status": STR,
            "started_at_ms": NULL_INT,
            "finished_at_ms": NULL_INT,
            "run": of(ROUTINE_RUN),
        },
        {"routine_id": NULL_STR, "automation_id": NULL_STR},
    ),
)
ROUTINE_RUN_CHANGED = Record(
    "RoutineRunChanged",
    obj(
        {"ok": BOOL, "run": of(ROUTINE_RUN), **_LINKS},
        {"cancelledSessionIDs": STRS, "artifact": of(ROUTINE_ARTIFACT)},
    ),
)
ROUTINE_RUN_ARTIFACTS = Record(
    "RoutineRunArtifacts",
    obj({"runID": STR, "artifacts": array_of(ROUTINE_ARTIFACT), "count": INT, **_LINKS}),
)

RECORDS = (
    ROUTINE,
    ROUTINE_RUN,
    ROUTINES,
    ROUTINE_ENVELOPE,
    ROUTINE_PATCHED,
    ROUTINE_DELETED,
    RUN_NOW,
    ROUTINE_HISTORY,
    ROUTINE_RUNS,
    ROUTINE_RUN_DETAIL,
    ROUTINE_RUN_CHANGED,
    ROUTINE_ARTIFACT,
    ROUTINE_RUN_ARTIFACTS,
)
