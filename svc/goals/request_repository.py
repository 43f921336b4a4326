"""The request ledger (``goal_requests``): idempotency keys of goal operations and replies.

A request reserves its key before it runs, stores its reply when it completes, and
releases the reservation when it fails, so the same key again replays the stored reply
(or conflicts while the first is still running) and a failed request can be retried.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..store import Store, Tx, dumps, loads

if TYPE_CHECKING:
    from .tenancy import TenantContext

_KEY = "org_id=? AND workspace_id=? AND deployment_key=? AND operation=? AND idempotency_key=?"


@attrs.frozen
class LedgerEntry:
    request_digest: str
    response: Any
    created_at_ms: int
    completed_at_ms: int | None


def _entry(tx: Tx, tenant: TenantContext, operation: str, key: str) -> LedgerEntry | None:
    row = tx.execute(
        "SELECT request_digest, response, created_at_ms, completed_at_ms FROM goal_requests "
        f"WHERE {_KEY}",
        (*tenant.key(), operation, key),
    ).fetchone()
    return LedgerEntry(row[0], loads(row[1]), row[2], row[3]) if row else None


class RequestLedger:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def request(self, tenant: TenantContext, operation: str, key: str) -> LedgerEntry | None:
        return await self._db.read(_entry, tenant, operation, key)

    async def reserve_request(
        self, tenant: TenantContext, operation: str, key: str, request_digest: str, now_ms: int
    ) -> LedgerEntry | None:
        """Reserve the key; returns the existing entry instead when one exists."""

        def q(tx: Tx) -> LedgerEntry | None:
            existing = _entry(tx, tenant, operation, key)
            if existing is not None:
                return existing
            tx.execute(
                "INSERT INTO goal_requests(org_id, workspace_id, deployment_key, operation, "
                "idempotency_key, request_digest, created_at_ms) VALUES (?,?,?,?,?,?,?)",
                (*tenant.key(), operation, key, request_digest, now_ms),
            )
            return None

        return await self._db.write(q)

    async def complete_request(
        self, tenant: TenantContext, operation: str, key: str, response: Any, now_ms: int
    ) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                f"UPDATE goal_requests SET response=?, completed_at_ms=? WHERE {_KEY}",
                (dumps(response), now_ms, *tenant.key(), operation, key),
            )

        await self._db.write(q)

    async def release_request(self, tenant: TenantContext, operation: str, key: str) -> None:
        """Forget a reservation whose request failed, so a retry can run it."""

        def q(tx: Tx) -> None:
            tx.execute(
                f"DELETE FROM goal_requests WHERE {_KEY} AND completed_at_ms IS NULL",
                (*tenant.key(), operation, key),
            )

        await self._db.write(q)


__all__ = ["LedgerEntry", "RequestLedger"]
