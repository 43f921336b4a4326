"""Permission requests: a tool call that needs a human's yes or no.

The rule table (``svc.tools.permissions``) decides allow, ask or deny. On
``ask`` the run calls :meth:`PermissionService.request`, which records a
pending request, announces ``permission.asked`` and waits (bounded by the
configured timeout) until ``POST /permission/{id}/reply`` answers it. A reply
of ``always``/``allow`` or ``reject``/``deny`` also adds a standing rule for
the session, so the same question is not asked twice.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs
import trio

from ..clock import Clock
from ..errors import SvcError
from ..events import EventLog
from ..store import Store, Tx, dumps, loads
from ..tools.permissions import (
    DEFAULT_RULES,
    VALID_REPLIES,
    PermissionRule,
    evaluate,
    reply_to_rule,
)

REQUEST_TTL_MS = 15 * 60 * 1000

Outcome = Literal["approved", "denied", "timeout"]


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


_REQ_COLS = (
    "id, tool, permission, pattern, args, status, action_digest, requested_at_ms, expires_at_ms, session_id, "
    "run_id, call_id, message_id, reply, decided_by, standing_rule_id, decided_at_ms"
)


def _request_row(r: PermissionRequest) -> tuple[Any, ...]:
    return (
        r.id,
        r.tool,
        r.permission,
        r.pattern,
        dumps(dict(r.args)),
        r.status,
        r.action_digest,
        r.requested_at_ms,
        r.expires_at_ms,
        r.session_id,
        r.run_id,
        r.call_id,
        r.message_id,
        r.reply,
        r.decided_by,
        r.standing_rule_id,
        r.decided_at_ms,
    )


def _request(row: tuple[Any, ...]) -> PermissionRequest:
    return PermissionRequest(
        id=row[0],
        tool=row[1],
        permission=row[2],
        pattern=row[3],
        args=loads(row[4], {}),
        status=row[5],
        action_digest=row[6],
        requested_at_ms=row[7],
        expires_at_ms=row[8],
        session_id=row[9],
        run_id=row[10],
        call_id=row[11],
        message_id=row[12],
        reply=row[13],
        decided_by=row[14],
        standing_rule_id=row[15],
        decided_at_ms=row[16],
    )


_RULE_COLS = "id, permission, pattern, action, session_id, created_at_ms, created_by, source_request_id, provenance"


def _rule(row: tuple[Any, ...]) -> PermissionRule:
    return PermissionRule(
        id=row[0],
        permission=row[1],
        pattern=row[2],
        action=row[3],
        session_id=row[4],
        created_at_ms=row[5],
        created_by=row[6],
        source_request_id=row[7],
        provenance=row[8],
    )


def action_digest(tool: str, args: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {"tool": tool, "args": args}, sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


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
        self._db = db
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

        def q(tx: Tx) -> list[PermissionRule]:
            tx.execute(
                "UPDATE permission_requests SET status = 'expired', reply = 'runtime_restarted' WHERE status = 'pending'"
            )
            return [
                _rule(r)
                for r in tx.execute(
                    f"SELECT {_RULE_COLS} FROM permission_rules ORDER BY created_at_ms"
                )
            ]

        self._rules = await self._db.write(q)

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
        await self._db.write(_insert_rule, rule)
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
            await self._db.write(_insert_request, request)
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
                await self._db.write(_update_request, request)
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
                await self._db.write(_update_request, request)
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
        await self._db.write(_decide, decided, rule)
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
        def q(tx: Tx) -> PermissionRequest | None:
            row = tx.execute(
                f"SELECT {_REQ_COLS} FROM permission_requests WHERE id = ?", (request_id,)
            ).fetchone()
            return _request(row) if row else None

        return await self._db.read(q)

    async def requests(
        self, *, status: str | None = None, limit: int = 200
    ) -> list[PermissionRequest]:
        def q(tx: Tx) -> list[PermissionRequest]:
            where = "WHERE status = ?" if status else ""
            params: tuple[Any, ...] = (status, limit) if status else (limit,)
            sql = f"SELECT {_REQ_COLS} FROM permission_requests {where} ORDER BY requested_at_ms DESC LIMIT ?"
            return [_request(r) for r in tx.execute(sql, params)]

        return await self._db.read(q)

    async def listing(self) -> dict[str, Any]:
        """The ``GET /permission`` body."""
        recent = await self.requests(limit=200)
        return {
            "requests": [r.to_wire() for r in recent if r.status == "pending"],
            "rules": [r.to_wire() for r in self.rules],
            "decisions": [r.decision_wire() for r in recent if r.status != "pending"],
        }


def _insert_request(tx: Tx, r: PermissionRequest) -> None:
    tx.execute(
        f"INSERT INTO permission_requests({_REQ_COLS}) VALUES ({','.join('?' * 17)})",
        _request_row(r),
    )


def _update_request(tx: Tx, r: PermissionRequest) -> None:
    tx.execute(
        f"INSERT OR REPLACE INTO permission_requests({_REQ_COLS}) VALUES ({','.join('?' * 17)})",
        _request_row(r),
    )


def _insert_rule(tx: Tx, rule: PermissionRule) -> None:
    tx.execute(
        f"INSERT INTO permission_rules({_RULE_COLS}) VALUES (?,?,?,?,?,?,?,?,?)",
        (
            rule.id,
            rule.permission,
            rule.pattern,
            rule.action,
            rule.session_id,
            rule.created_at_ms,
            rule.created_by,
            rule.source_request_id,
            rule.provenance,
        ),
    )


def _decide(tx: Tx, request: PermissionRequest, rule: PermissionRule | None) -> None:
    _update_request(tx, request)
    if rule is not None:
        _insert_rule(tx, rule)
