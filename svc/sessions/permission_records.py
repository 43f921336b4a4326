"""Permission requests as records: what was asked, and how it was decided."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import attrs

from ..errors import SvcError


class ApprovalReplyInvalid(SvcError):
    """reply must be one of once|always|reject|allow|deny"""

    code = "APPROVAL_REPLY_INVALID"
    status = 400


class ApprovalRequestNotFound(SvcError):
    """Permission request not found"""

    code = "APPROVAL_REQUEST_NOT_FOUND"
    status = 404


@attrs.frozen
class PermissionRequest:
    id: str
    tool: str
    permission: str
    pattern: str
    args: Mapping[str, Any]
    status: str
    action_digest: str
    requested_at_ms: int
    expires_at_ms: int
    session_id: str | None = None
    run_id: str | None = None
    call_id: str | None = None
    message_id: str | None = None
    reply: str | None = None
    decided_by: str | None = None
    standing_rule_id: str | None = None
    decided_at_ms: int | None = None

    def to_wire(self) -> dict[str, Any]:
        # The client models status as pending|approved|rejected|unknown; the
        # raw reply word stays available in `reply`.
        status = {"pending": "pending", "approved": "approved", "denied": "rejected"}.get(
            self.status, "unknown"
        )
        wire: dict[str, Any] = {
            "id": self.id,
            "tenantContext": {
                "org_id": "local",
                "workspace_id": "local",
                "source": "local_implicit",
            },
            "actionDigest": self.action_digest,
            "expiresAtMs": self.expires_at_ms,
            "requestedAtMs": self.requested_at_ms,
            "sessionID": self.session_id,
            "runID": self.run_id,
            "permission": self.permission,
            "pattern": self.pattern,
            "tool": self.tool,
            "args": dict(self.args),
            "query": None,
            "status": status,
            "reply": self.reply,
        }
        if self.call_id:
            wire["callID"] = self.call_id
        return wire

    def decision_wire(self) -> dict[str, Any]:
        return {
            "requestID": self.id,
            "sessionID": self.session_id,
            "permission": self.permission,
            "pattern": self.pattern,
            "decision": self.reply or self.status,
            "decidedAtMs": self.decided_at_ms,
            "decidedBy": self.decided_by,
            "reason": None,
            "standingRuleID": self.standing_rule_id,
            "standingRulePersisted": self.standing_rule_id is not None,
            "actionDigest": self.action_digest,
        }


def action_digest(tool: str, args: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {"tool": tool, "args": args}, sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()
