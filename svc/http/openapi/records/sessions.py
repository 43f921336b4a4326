"""Named response shapes of the records the API answers with (see ``Record``).

Each schema states the fields a client may rely on (``required``) and their
types; records stay open (``additionalProperties`` is not closed) because the
engine adds fields for the clients it serves without breaking older ones.
"""

from __future__ import annotations

from ..registry import Record, ref
from .common import BOOL, INT, NULL_INT, NULL_STR, STR
from .common import obj as _object

HEALTH = Record(
    "Health",
    _object(
        {"healthy": BOOL, "ready": BOOL},
        {
            "version": STR,
            "store": STR,
            "phase": STR,
            "replicaID": STR,
            "scheduler": STR,
            "liveReplicas": NULL_INT,
        },
    ),
)

PART = Record(
    "MessagePart",
    _object({"type": STR}, {"id": STR, "text": STR, "sessionID": STR, "messageID": STR}),
)

MESSAGE = Record(
    "Message",
    _object(
        {
            "info": _object(
                {"id": STR, "sessionID": STR, "role": STR, "time": _object({"created": INT})},
                {"runID": STR},
            ),
            "parts": {"type": "array", "items": ref("MessagePart")},
        }
    ),
)

MESSAGES = Record("Messages", {"type": "array", "items": ref("Message")})

SESSION = Record(
    "Session",
    _object(
        {
            "id": STR,
            "title": STR,
            "directory": STR,
            "time": _object({"created": INT, "updated": INT}),
            "archived": BOOL,
        },
        {
            "workspaceRoot": STR,
            "parentID": NULL_STR,
            "messages": {"type": "array", "items": ref("Message")},
        },
    ),
)

SESSIONS = Record("Sessions", {"type": "array", "items": ref("Session")})

RUN_STARTED = Record(
    "RunStarted",
    _object(
        {"runID": STR, "sessionID": STR},
        {"attachEventStream": STR, "contextRunID": STR},
    ),
)

PROMPT_RESULT = Record(
    "PromptResult",
    _object(
        {"runID": STR, "sessionID": STR, "status": STR, "messages": ref("Messages")},
        {"reply": NULL_STR, "text": NULL_STR, "output": NULL_STR, "usage": {"type": "object"}},
    ),
)

SESSION_STATUS = Record(
    "SessionStatus",
    {
        "type": "object",
        "additionalProperties": _object({"type": STR}, {"meta": {"type": "object"}}),
    },
)

RECORDS: tuple[Record, ...] = (
    HEALTH,
    PART,
    MESSAGE,
    MESSAGES,
    SESSION,
    SESSIONS,
    RUN_STARTED,
    PROMPT_RESULT,
    SESSION_STATUS,
)

__all__ = [
    "HEALTH",
    "MESSAGE",
    "MESSAGES",
    "PROMPT_RESULT",
    "RECORDS",
    "RUN_STARTED",
    "SESSION",
    "SESSIONS",
    "SESSION_STATUS",
]
