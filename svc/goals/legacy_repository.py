"""Imported legacy handoff envelopes and quarantined files (``goal_legacy_*``).

An import is one transaction: every envelope upserted (a row changes only when its
digest or status did), its file leaving quarantine, every bad file quarantined with its
reason, and the source recorded in ``goal_migration_sources``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..store import Store, Tx, dumps

if TYPE_CHECKING:
    from .legacy import Envelope, Quarantined


class LegacyHandoffRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def save_import(
        self,
        source_kind: str,
        source_path: str,
        envelopes: Sequence[Envelope],
        quarantined: Sequence[Quarantined],
        now_ms: int,
    ) -> None:
        def q(tx: Tx) -> None:
            for envelope in envelopes:
                tx.execute(
                    "INSERT INTO goal_legacy_handoffs(handoff_id, source_path, source_digest, "
                    "status, record, imported_at_ms) VALUES (?,?,?,?,?,?) "
                    "ON CONFLICT(handoff_id) DO UPDATE SET source_path=excluded.source_path, "
                    "source_digest=excluded.source_digest, status=excluded.status, "
                    "record=excluded.record, imported_at_ms=excluded.imported_at_ms "
                    "WHERE goal_legacy_handoffs.source_digest != excluded.source_digest "
                    "OR goal_legacy_handoffs.status != excluded.status",
                    (
                        envelope.handoff_id,
                        envelope.source_path,
                        envelope.source_digest,
                        envelope.status,
                        dumps(envelope.record),
                        now_ms,
                    ),
                )
                tx.execute(
                    "DELETE FROM goal_legacy_quarantine WHERE source_path=?",
                    (envelope.source_path,),
                )
            for item in quarantined:
                # IS DISTINCT FROM: an unreadable file has no digest (NULL), and NULL != x
                # is never true (both SQLite and PostgreSQL accept it).
                tx.execute(
                    "INSERT INTO goal_legacy_quarantine(source_path, source_digest, error, "
                    "quarantined_at_ms) VALUES (?,?,?,?) ON CONFLICT(source_path) DO UPDATE SET "
                    "source_digest=excluded.source_digest, error=excluded.error, "
                    "quarantined_at_ms=excluded.quarantined_at_ms "
                    "WHERE goal_legacy_quarantine.source_digest "
                    "IS DISTINCT FROM excluded.source_digest "
                    "OR goal_legacy_quarantine.error != excluded.error",
                    (item.source_path, item.source_digest, item.error, now_ms),
                )
            tx.execute(
                "INSERT INTO goal_migration_sources(source_kind, source_path, record_count, "
                "imported_at_ms) VALUES (?,?,?,?) ON CONFLICT(source_kind, source_path) "
                "DO UPDATE SET record_count=excluded.record_count, "
                "imported_at_ms=excluded.imported_at_ms",
                (source_kind, source_path, len(envelopes), now_ms),
            )

        await self._db.write(q)

    async def handoffs(self) -> list[dict[str, Any]]:
        def q(tx: Tx) -> list[dict[str, Any]]:
            return [
                {
                    "handoff_id": row[0],
                    "source_path": row[1],
                    "status": row[2],
                    "envelope": json.loads(row[3]),
                    "imported_at_ms": row[4],
                }
                for row in tx.execute(
                    "SELECT handoff_id, source_path, status, record, imported_at_ms "
                    "FROM goal_legacy_handoffs ORDER BY handoff_id"
                )
            ]

        return await self._db.read(q)

    async def quarantine(self) -> list[dict[str, Any]]:
        def q(tx: Tx) -> list[dict[str, Any]]:
            return [
                {
                    "source_path": row[0],
                    "source_digest": row[1],
                    "error": row[2],
                    "quarantined_at_ms": row[3],
                }
                for row in tx.execute(
                    "SELECT source_path, source_digest, error, quarantined_at_ms "
                    "FROM goal_legacy_quarantine ORDER BY source_path"
                )
            ]

        return await self._db.read(q)


__all__ = ["LegacyHandoffRepository"]
