"""Permission requests: a tool call that needs a human's yes or no.

The rule table (``svc.tools.permissions``) decides allow, ask or deny. On
``ask`` the run calls :meth:`PermissionService.request`, which records a
pending request, announces ``permission.asked`` and waits (bounded by the
configured timeout) until ``POST /permission/{id}/reply`` answers it. A reply
of ``always``/``allow`` or ``reject``/``deny`` also adds a standing rule for
the session, so the same question is not asked twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs
import trio

from ..clock import Clock
from ..events import EventLog
from ..store import Store
from ..tools.permissions import (
    DEFAULT_RULES,
    VALID_REPLIES,
    PermissionRule,
    evaluate,
    reply_to_rule,
)
from .permission_records import (
    ApprovalReplyInvalid,
    ApprovalRequestNotFound,
    PermissionRequest,
    action_digest,
)
from .permission_repository import PermissionRepository

REQUEST_TTL_MS = 15 * 60 * 1000

Outcome = Literal["approved", "denied", "timeout"]

__all__ = [
    "ApprovalReplyInvalid",
    "ApprovalRequestNotFound",
    "PermissionRequest",
    "PermissionService",
    "action_digest",
]


class _Waiter:
    __slots__ = ("done", "outcome")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.outcome: Outcome = "timeout"


class PermissionService:
    def __init__(
        self,
        db: Store,
        events: EventLog,
        clock: Clock,
        *,
        wait_timeout_s: float,
        apply_defaults: bool = True,
    ) -> None:
        self._repo = PermissionRepository(db)
        self._events = events
        self._clock = clock
        self.wait_timeout_s = wait_timeout_s
        self._defaults = list(DEFAULT_RULES) if apply_defaults else []
        self._rules: list[PermissionRule] = []
        self._waiters: dict[str, _Waiter] = {}
        # In-memory pre-approvals for unattended runs (automations): they turn
        # an "ask" into "allow" for one session; a deny rule still wins.
        self._session_grants: dict[str, frozenset[str]] = {}

    async def load(self) -> None:
        """Load standing rules; requests left pending by a previous process expire."""
        self._rules = await self._repo.expire_pending_and_load_rules()

    # ------------------------------------------------------------ rules
    @property
    def rules(self) -> list[PermissionRule]:
        return [*self._defaults, *self._rules]

    def evaluate(self, permission: str, *, session_id: str | None) -> str:
        action = evaluate(self.rules, permission, session_id=session_id)
        if (
            action == "ask"
            and session_id is not None
            and permission in self._session_grants.get(session_id, ())
        ):
            return "allow"
        return action

    def grant_session(self, session_id: str, permissions: Iterable[str]) -> None:
        """Pre-approve ``permissions`` in one session (not persisted; a deny rule still wins)."""
        self._session_grants[session_id] = frozenset(permissions) | self._session_grants.get(
            session_id, frozenset()
        )

    def revoke_session(self, session_id: str) -> None:
        self._session_grants.pop(session_id, None)

    async def add_rule(self, rule: PermissionRule) -> None:
        await self._repo.add_rule(rule)
        self._rules.append(rule)

    # ------------------------------------------------------------ requests
    async def request(
        self,
        *,
        tool: str,
        permission: str,
        args: Mapping[str, Any],
        session_id: str | None,
        run_id: str | None,
        call_id: str | None = None,
        message_id: str | None = None,
    ) -> tuple[Outcome, PermissionRequest]:
        """Ask and wait for the answer (or the timeout). Cancel-safe."""
        now = self._clock.now_ms()
        request = PermissionRequest(
            id=str(uuid.uuid4()),
            tool=tool,
            permission=permission,
            pattern="*",
            args=dict(args),
            status="pending",
            action_digest=action_digest(tool, args),
            requested_at_ms=now,
            expires_at_ms=now + REQUEST_TTL_MS,
            session_id=session_id,
            run_id=run_id,
            call_id=call_id,
            message_id=message_id,
        )
        waiter = _Waiter()
        self._waiters[request.id] = waiter
        try:
            await self._repo.add_request(request)
            self._events.publish(
                "permission.asked",
                {
                    "sessionID": session_id,
                    "runID": run_id,
                    "requestID": request.id,
                    "id": request.id,
                    "tool": tool,
                    "permission": permission,
                    "args": dict(args),
                    "requestedAtMs": now,
                    "expiresAtMs": request.expires_at_ms,
                    "actionDigest": request.action_digest,
                    "callID": call_id,
                    "messageID": message_id,
                },
            )
            with trio.move_on_after(self.wait_timeout_s):
                await waiter.done.wait()
            if waiter.outcome == "timeout":
                request = attrs.evolve(
                    request, status="expired", reply="timeout", decided_at_ms=self._clock.now_ms()
                )
                await self._repo.save_request(request)
                self._events.publish(
                    "permission.wait.timeout",
                    {
                        "sessionID": session_id,
                        "runID": run_id,
                        "requestID": request.id,
                        "tool": tool,
                        "timeoutMs": int(self.wait_timeout_s * 1000),
                        "messageID": message_id,
                    },
                )
                return "timeout", request
            stored = await self.get(request.id)
            return waiter.outcome, stored or request
        except trio.Cancelled:
            # The run was cancelled while waiting: the request must not stay
            # pending forever. Shielded; the store write is short.
            with trio.CancelScope(shield=True):
                request = attrs.evolve(
                    request, status="cancelled", decided_at_ms=self._clock.now_ms()
                )
                await self._repo.save_request(request)
            raise
        finally:
            self._waiters.pop(request.id, None)

    async def reply(
        self, request_id: str, reply: Any, *, decided_by: str = "user"
    ) -> dict[str, Any]:
        if not isinstance(reply, str) or reply not in VALID_REPLIES:
            raise ApprovalReplyInvalid(field="reply")
        request = await self.get(request_id)
        if request is None:
            raise ApprovalRequestNotFound()
        if request.status != "pending":
            raise ApprovalReplyInvalid("Permission request is no longer pending", status=409)
        now = self._clock.now_ms()
        if now > request.expires_at_ms:
            raise ApprovalReplyInvalid("Permission request has expired", status=409)
        rule = reply_to_rule(
            reply,
            request.permission,
            request.session_id,
            now_ms=now,
            source_request_id=request.id,
            created_by=decided_by,
        )
        approved = reply in ("once", "always", "allow")
        decided = attrs.evolve(
            request,
            status="approved" if approved else "denied",
            reply=reply,
            decided_by=decided_by,
            decided_at_ms=now,
            standing_rule_id=rule.id if rule else None,
        )
        await self._repo.decide(decided, rule)
        if rule is not None:
            self._rules.append(rule)
        self._events.publish(
            "permission.replied",
            {
                "sessionID": request.session_id,
                "runID": request.run_id,
                "requestID": request.id,
                "reply": reply,
                "decidedAtMs": now,
                "decidedBy": decided_by,
                "standingRuleID": decided.standing_rule_id,
                "standingRulePersisted": rule is not None,
                "actionDigest": request.action_digest,
            },
        )
        waiter = self._waiters.get(request.id)
        if waiter is not None:
            waiter.outcome = "approved" if approved else "denied"
            waiter.done.set()
        return {
            "ok": True,
            "requestID": request.id,
            "reply": reply,
            "status": "applied",
            "persistedRule": rule is not None,
            "standingRuleID": decided.standing_rule_id,
        }

    async def get(self, request_id: str) -> PermissionRequest | None:
        return await self._repo.get_request(request_id)

    async def requests(
        self, *, status: str | None = None, limit: int = 200
    ) -> list[PermissionRequest]:
        return await self._repo.recent_requests(status=status, limit=limit)

    async def listing(self) -> dict[str, Any]:
        """The ``GET /permission`` body."""
        recent = await self.requests(limit=200)
        return {
            "requests": [r.to_wire() for r in recent if r.status == "pending"],
            "rules": [r.to_wire() for r in self.rules],
            "decisions": [r.decision_wire() for r in recent if r.status != "pending"],
        }
