"""Questions a run asks the user, as records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..errors import SvcError


class QuestionNotFound(SvcError):
    """Question request not found"""

    code = "APPROVAL_REQUEST_NOT_FOUND"
    status = 404


@attrs.frozen
class QuestionRequest:
    id: str
    questions: tuple[Mapping[str, Any], ...]
    status: str
    requested_at_ms: int
    expires_at_ms: int
    session_id: str | None = None
    run_id: str | None = None
    call_id: str | None = None
    message_id: str | None = None
    answers: tuple[tuple[str, ...], ...] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "id": self.id,
            "tenantContext": {
                "org_id": "local",
                "workspace_id": "local",
                "source": "local_implicit",
            },
            "sessionID": self.session_id,
            "runID": self.run_id,
            "questions": [dict(q) for q in self.questions],
            "status": self.status,
            "requestedAtMs": self.requested_at_ms,
            "expiresAtMs": self.expires_at_ms,
        }
        if self.call_id or self.message_id:
            wire["tool"] = {"callID": self.call_id, "messageID": self.message_id}
        # The first question flattened, for clients that model one question with choices.
        first = self.questions[0] if self.questions else {}
        wire["text"] = first.get("question")
        wire["choices"] = [
            str(o.get("label")) for o in first.get("options") or [] if isinstance(o, Mapping)
        ]
        return wire
