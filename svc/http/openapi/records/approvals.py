"""Records of permission requests and questions awaiting a human."""

from __future__ import annotations

from ..registry import Record
from .common import BOOL, INT, NULL_INT, NULL_STR, OBJ, STR, array_of, obj

_TENANT = obj({"org_id": STR, "workspace_id": STR, "source": STR})

PERMISSION_REQUEST = Record(
    "PermissionRequest",
    obj(
        {
            "id": STR,
            "tenantContext": _TENANT,
            "actionDigest": STR,
            "expiresAtMs": INT,
            "requestedAtMs": INT,
            "sessionID": NULL_STR,
            "runID": NULL_STR,
            "permission": STR,
            "pattern": STR,
            "tool": STR,
            "args": OBJ,
            "query": {"type": "null"},
            "status": {"enum": ["pending", "approved", "rejected", "unknown"]},
            "reply": NULL_STR,
        },
        {"callID": STR},
    ),
)
PERMISSION_RULE = Record(
    "PermissionRule",
    obj(
        {"id": STR, "permission": STR, "pattern": STR, "action": STR},
        {
            "sessionID": STR,
            "createdAtMs": INT,
            "createdBy": STR,
            "sourceRequestID": STR,
            "provenance": STR,
        },
    ),
)
PERMISSION_DECISION = Record(
    "PermissionDecision",
    obj(
        {
            "requestID": STR,
            "sessionID": NULL_STR,
            "permission": STR,
            "pattern": STR,
            "decision": STR,
            "decidedAtMs": NULL_INT,
            "decidedBy": NULL_STR,
            "reason": NULL_STR,
            "standingRuleID": NULL_STR,
            "standingRulePersisted": BOOL,
            "actionDigest": STR,
        }
    ),
)
PERMISSIONS = Record(
    "Permissions",
    obj(
        {
            "requests": array_of(PERMISSION_REQUEST),
            "rules": array_of(PERMISSION_RULE),
            "decisions": array_of(PERMISSION_DECISION),
        }
    ),
)
PERMISSION_REPLY = Record(
    "PermissionReply",
    obj(
        {
            "ok": BOOL,
            "requestID": STR,
            "reply": STR,
            "status": STR,
            "persistedRule": BOOL,
            "standingRuleID": NULL_STR,
        }
    ),
)
QUESTION = Record(
    "Question",
    obj(
        {
            "id": STR,
            "tenantContext": _TENANT,
            "sessionID": NULL_STR,
            "runID": NULL_STR,
            "questions": array_of(OBJ),
            "status": STR,
            "requestedAtMs": INT,
            "expiresAtMs": INT,
        },
        {"tool": obj({"callID": NULL_STR, "messageID": NULL_STR})},
    ),
)
QUESTIONS = Record("Questions", array_of(QUESTION))

RECORDS = (
    PERMISSION_REQUEST,
    PERMISSION_RULE,
    PERMISSION_DECISION,
    PERMISSIONS,
    PERMISSION_REPLY,
    QUESTION,
    QUESTIONS,
)
