"""Records of a session's other answers: its settings, todos, active run, history."""

from __future__ import annotations

from ..registry import Record
from .common import (
    BOOL,
    INT,
    NULL_OBJ,
    NULL_STR,
    OBJ,
    STR,
    STRS,
    array_of,
    nullable,
    obj,
    of,
)
from .sessions import SESSION

SESSION_SETTINGS = Record(
    "SessionSettings",
    obj(
        {
            "id": STR,
            "title": STR,
            "directory": STR,
            "workspace_root": STR,
            "project_id": NULL_STR,
            "parent_id": NULL_STR,
            "model": nullable(obj({"provider_id": STR, "model_id": STR})),
            "archived": BOOL,
            "time": obj({"created_ms": INT, "updated_ms": INT}),
            "settings": OBJ,
        }
    ),
)
ACTIVE_RUN = Record(
    "ActiveRun",
    obj(
        {
            "runID": STR,
            "startedAtMs": INT,
            "lastActivityAtMs": INT,
            "clientID": NULL_STR,
            "agentID": NULL_STR,
            "agentProfile": {},
        }
    ),
)
SESSION_DELETED = Record(
    "SessionDeleted",
    obj(
        {"deleted": BOOL},
        {"cancelRequested": BOOL, "activeRun": of(ACTIVE_RUN), "reason": STR},
    ),
)
TODO = Record("Todo", obj({"id": STR, "content": STR, "status": STR}))
TODOS = Record("Todos", array_of(TODO))
SESSION_ACTIVE_RUN = Record(
    "SessionActiveRun",
    obj(
        {"active": nullable(ACTIVE_RUN)},
        {"contextRunID": STR, "linked_context_run_id": STR, "attachEventStream": STR},
    ),
)
RUN_CANCELLED = Record(
    "RunCancelled", obj({"ok": BOOL, "cancelled": BOOL, "closedBrowserSessions": INT})
)
SESSION_LIST = Record("SessionList", array_of(SESSION))
SESSION_DIFF = Record(
    "SessionDiff",
    obj(
        {
            "diff": STR,
            "files": STRS,
            "changes": array_of(
                obj(
                    {
                        "path": STR,
                        "tool": NULL_STR,
                        "messageID": STR,
                        "runID": NULL_STR,
                        "diff": STR,
                    }
                )
            ),
            "source": STR,
        }
    ),
)
SESSION_REVERTED = Record(
    "SessionReverted",
    obj(
        {"ok": BOOL, "sessionID": STR, "reverted": BOOL},
        {
            "revert": OBJ,
            "hiddenMessages": INT,
            "files": STRS,
            "workspace": STR,
            "restoredMessages": INT,
        },
    ),
)
SESSION_SUMMARY = Record(
    "SessionSummary",
    obj(
        {
            "ok": BOOL,
            "sessionID": STR,
            "runID": STR,
            "status": STR,
            "summary": NULL_STR,
            "messageID": NULL_STR,
            "error": NULL_OBJ,
        }
    ),
)
SESSION_ATTACHED = Record(
    "SessionAttached",
    obj(
        {
            "ok": BOOL,
            "sessionID": STR,
            "directory": STR,
            "workspaceRoot": STR,
            "previousDirectory": STR,
            "parentID": NULL_STR,
            "session": of(SESSION),
        }
    ),
)

RECORDS = (
    SESSION_SETTINGS,
    ACTIVE_RUN,
    SESSION_DELETED,
    TODO,
    TODOS,
    SESSION_ACTIVE_RUN,
    RUN_CANCELLED,
    SESSION_LIST,
    SESSION_DIFF,
    SESSION_REVERTED,
    SESSION_SUMMARY,
    SESSION_ATTACHED,
)
