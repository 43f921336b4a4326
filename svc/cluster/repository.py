"""Replicas and leases in the shared database (PostgreSQL migration 020).

Every time is the database's clock (:data:`_NOW`), so replicas on machines
whose clocks disagree still agree on who is live and which lease expired.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..store import Store, Tx

_NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"

FORGET_AFTER_LEASES = 100
"""A replica silent for this many lease times is removed from the table."""


@attrs.frozen
class Owner:
    """Who holds an entity's lease."""

    replica_id: str
    url: str | None
    """The owner's internal URL (None: it never advertised one)."""
    remaining_ms: int
    """How long the lease runs unless renewed (0 or less: expired)."""


class ClusterRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def heartbeat(
        self, replica_id: str, url: str | None, lease_ms: int
    ) -> set[tuple[str, str]]:
        """Mark this replica live, renew its leases; the leases it still holds."""
        return await self._db.write(_heartbeat, replica_id, url, lease_ms)

    async def live_replicas(self, lease_ms: int) -> int:
        return await self._db.read(_live, lease_ms)

    async def claim(
        self, kind: str, entity_id: str, replica_id: str, lease_ms: int
    ) -> Owner | None:
        """Take or renew the lease (free, expired or ours): None; else its owner."""
        return await self._db.write(_claim, kind, entity_id, replica_id, lease_ms)

    async def leave(self, replica_id: str) -> None:
        """A replica stopping cleanly gives its leases up for the others at once."""
        await self._db.write(_leave, replica_id)


def _heartbeat(tx: Tx, replica_id: str, url: str | None, lease_ms: int) -> set[tuple[str, str]]:
    tx.execute(
        "INSERT INTO cluster_replicas(replica_id, url, started_at_ms, heartbeat_at_ms) "
        f"VALUES (?, ?, {_NOW}, {_NOW}) ON CONFLICT (replica_id) DO UPDATE SET "
        "url = excluded.url, heartbeat_at_ms = excluded.heartbeat_at_ms",
        (replica_id, url),
    )
    tx.execute(
        f"DELETE FROM cluster_replicas WHERE heartbeat_at_ms < {_NOW} - ?",
        (lease_ms * FORGET_AFTER_LEASES,),
    )
    rows = tx.execute(
        f"UPDATE cluster_leases SET expires_at_ms = {_NOW} + ? "
        "WHERE replica_id = ? RETURNING kind, entity_id",
        (lease_ms, replica_id),
    )
    return {(kind, entity_id) for kind, entity_id in rows}


def _live(tx: Tx, lease_ms: int) -> int:
    return int(
        tx.execute(
            f"SELECT count(*) FROM cluster_replicas WHERE heartbeat_at_ms > {_NOW} - ?",
            (lease_ms,),
        ).scalar(0)
    )


def _claim(tx: Tx, kind: str, entity_id: str, replica_id: str, lease_ms: int) -> Owner | None:
    taken = tx.execute(
        "INSERT INTO cluster_leases(kind, entity_id, replica_id, expires_at_ms) "
        f"VALUES (?, ?, ?, {_NOW} + ?) ON CONFLICT (kind, entity_id) DO UPDATE SET "
        "replica_id = excluded.replica_id, expires_at_ms = excluded.expires_at_ms "
        f"WHERE cluster_leases.replica_id = excluded.replica_id "
        f"OR cluster_leases.expires_at_ms < {_NOW} RETURNING replica_id",
        (kind, entity_id, replica_id, lease_ms),
    ).fetchone()
    if taken is not None:
        return None
    row: Any = tx.execute(
        f"SELECT l.replica_id, r.url, l.expires_at_ms - {_NOW} FROM cluster_leases l "
        "LEFT JOIN cluster_replicas r ON r.replica_id = l.replica_id "
        "WHERE l.kind = ? AND l.entity_id = ?",
        (kind, entity_id),
    ).fetchone()
    return Owner(row[0], row[1], int(row[2]))


def _leave(tx: Tx, replica_id: str) -> None:
    tx.execute("DELETE FROM cluster_leases WHERE replica_id = ?", (replica_id,))
    tx.execute("DELETE FROM cluster_replicas WHERE replica_id = ?", (replica_id,))


__all__ = ["ClusterRepository", "Owner"]
