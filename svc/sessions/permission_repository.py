"""Permission requests and standing permission rules in the store."""

from __future__ import annotations

from typing import Any

from ..store import Store, Tx, dumps, loads
from ..tools.permissions import PermissionRule
from .permission_records import PermissionRequest

_REQ_COLS = (
    "id, tool, permission, pattern, args, status, action_digest, requested_at_ms, expires_at_ms, "
    "session_id, run_id, call_id, message_id, reply, decided_by, standing_rule_id, decided_at_ms"
)
_REQ_UPDATES = ", ".join(f"{c.strip()} = excluded.{c.strip()}" for c in _REQ_COLS.split(",")[1:])
_RULE_COLS = (
    "id, permission, pattern, action, session_id, created_at_ms, created_by, source_request_id, "
    "provenance"
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


class PermissionRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def expire_pending_and_load_rules(self) -> list[PermissionRule]:
        """At start-up: requests left pending by a previous process expire; the standing rules."""

        def q(tx: Tx) -> list[PermissionRule]:
            tx.execute(
                "UPDATE permission_requests SET status = 'expired', reply = 'runtime_restarted' "
                "WHERE status = 'pending'"
            )
            rows = tx.execute(f"SELECT {_RULE_COLS} FROM permission_rules ORDER BY created_at_ms")
            return [_rule(r) for r in rows]

        return await self._db.write(q)

    async def add_rule(self, rule: PermissionRule) -> None:
        await self._db.write(_insert_rule, rule)

    async def add_request(self, request: PermissionRequest) -> None:
        await self._db.write(_insert_request, request)

    async def save_request(self, request: PermissionRequest) -> None:
        await self._db.write(_save_request, request)

    async def decide(self, request: PermissionRequest, rule: PermissionRule | None) -> None:
        """Record a decision and the standing rule it created, in one transaction."""
        await self._db.write(_decide, request, rule)

    async def get_request(self, request_id: str) -> PermissionRequest | None:
        def q(tx: Tx) -> PermissionRequest | None:
            row = tx.execute(
                f"SELECT {_REQ_COLS} FROM permission_requests WHERE id = ?", (request_id,)
            ).fetchone()
            return _request(row) if row else None

        return await self._db.read(q)

    async def recent_requests(
        self, *, status: str | None = None, limit: int = 200
    ) -> list[PermissionRequest]:
        def q(tx: Tx) -> list[PermissionRequest]:
            where = "WHERE status = ?" if status else ""
            params: tuple[Any, ...] = (status, limit) if status else (limit,)
            sql = (
                f"SELECT {_REQ_COLS} FROM permission_requests {where} "
                "ORDER BY requested_at_ms DESC LIMIT ?"
            )
            return [_request(r) for r in tx.execute(sql, params)]

        return await self._db.read(q)


def _insert_request(tx: Tx, r: PermissionRequest) -> None:
    tx.execute(
        f"INSERT INTO permission_requests({_REQ_COLS}) VALUES ({','.join('?' * 17)})",
        _request_row(r),
    )


def _save_request(tx: Tx, r: PermissionRequest) -> None:
    tx.execute(
        f"INSERT INTO permission_requests({_REQ_COLS}) VALUES ({','.join('?' * 17)}) "
        f"ON CONFLICT (id) DO UPDATE SET {_REQ_UPDATES}",
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
    _save_request(tx, request)
    if rule is not None:
        _insert_rule(tx, rule)
