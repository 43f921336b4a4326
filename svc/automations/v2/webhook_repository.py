"""Storage of automation v2 webhook triggers and their deliveries (tables
``automations_v2_webhook_triggers``, ``automations_v2_webhook_deliveries``).

A trigger's secret has a column of its own: :meth:`secret` is the one read of it
(to verify a signature); every other read returns the record without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...store import Store, Tx, dumps, loads

DELIVERIES_KEPT = 500
"""Deliveries kept per trigger (the oldest go first)."""


class WebhookRepository:
    def __init__(self, db: Store) -> None:
        self.db = db

    # ------------------------------------------------------------------ triggers
    async def save_trigger(self, record: Mapping[str, Any], secret: str | None = None) -> None:
        """Insert or update ``record``; ``secret`` replaces the stored one when given."""
        row = (
            record["trigger_id"],
            record["automation_id"],
            dumps(dict(record)),
            secret or "",
            record["created_at_ms"],
            record["updated_at_ms"],
        )

        # Without a new secret an update keeps the stored one.
        new_secret = ", secret = excluded.secret" if secret else ""

        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO automations_v2_webhook_triggers(trigger_id, automation_id, record, "
                "secret, created_at_ms, updated_at_ms) VALUES (?,?,?,?,?,?) "
                "ON CONFLICT (trigger_id) DO UPDATE SET record = excluded.record, "
                "updated_at_ms = excluded.updated_at_ms" + new_secret,
                row,
            )

        await self.db.write(q)

    async def trigger(self, trigger_id: str) -> dict[str, Any] | None:
        def q(tx: Tx) -> dict[str, Any] | None:
            for (record,) in tx.execute(
                "SELECT record FROM automations_v2_webhook_triggers WHERE trigger_id = ?",
                (trigger_id,),
            ):
                return dict(loads(record))
            return None

        return await self.db.read(q)

    async def triggers(self, automation_id: str) -> list[dict[str, Any]]:
        def q(tx: Tx) -> list[dict[str, Any]]:
            return [
                dict(loads(r[0]))
                for r in tx.execute(
                    "SELECT record FROM automations_v2_webhook_triggers WHERE automation_id = ? "
                    "ORDER BY created_at_ms, trigger_id",
                    (automation_id,),
                )
            ]

        return await self.db.read(q)

    async def secret(self, trigger_id: str) -> str | None:
        def q(tx: Tx) -> str | None:
            value = tx.execute(
                "SELECT secret FROM automations_v2_webhook_triggers WHERE trigger_id = ?",
                (trigger_id,),
            ).scalar(None)
            return str(value) if value else None

        return await self.db.read(q)

    async def delete_trigger(self, trigger_id: str) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "DELETE FROM automations_v2_webhook_deliveries WHERE trigger_id = ?", (trigger_id,)
            )
            tx.execute(
                "DELETE FROM automations_v2_webhook_triggers WHERE trigger_id = ?", (trigger_id,)
            )

        await self.db.write(q)

    # ------------------------------------------------------------------ deliveries
    async def add_delivery(self, record: Mapping[str, Any], dedupe_key: str | None) -> bool:
        """Store a delivery; False (and nothing stored) when ``dedupe_key`` was seen before
        for this trigger (a replay)."""
        row = (
            record["delivery_id"],
            record["trigger_id"],
            dedupe_key,
            record["status"],
            dumps(dict(record)),
            record["received_at_ms"],
        )

        def q(tx: Tx) -> bool:
            stored = tx.execute(
                "INSERT INTO automations_v2_webhook_deliveries(delivery_id, trigger_id, "
                "dedupe_key, status, record, received_at_ms) VALUES (?,?,?,?,?,?) "
                "ON CONFLICT (trigger_id, dedupe_key) DO NOTHING RETURNING seq",
                row,
            ).fetchone()
            if stored is None:
                return False
            # Bounded history: the oldest deliveries of this trigger beyond the cap go.
            tx.execute(
                "DELETE FROM automations_v2_webhook_deliveries WHERE trigger_id = ? AND seq <= "
                "(SELECT seq FROM automations_v2_webhook_deliveries WHERE trigger_id = ? "
                "ORDER BY seq DESC LIMIT 1 OFFSET ?)",
                (record["trigger_id"], record["trigger_id"], DELIVERIES_KEPT),
            )
            return True

        return await self.db.write(q)

    async def update_delivery(self, record: Mapping[str, Any]) -> None:
        await self.db.write(
            lambda tx: tx.execute(
                "UPDATE automations_v2_webhook_deliveries SET status = ?, record = ? "
                "WHERE delivery_id = ?",
                (record["status"], dumps(dict(record)), record["delivery_id"]),
            )
        )

    async def delivery_by_key(self, trigger_id: str, dedupe_key: str) -> dict[str, Any] | None:
        def q(tx: Tx) -> dict[str, Any] | None:
            for (record,) in tx.execute(
                "SELECT record FROM automations_v2_webhook_deliveries "
                "WHERE trigger_id = ? AND dedupe_key = ?",
                (trigger_id, dedupe_key),
            ):
                return dict(loads(record))
            return None

        return await self.db.read(q)

    async def delivery(self, trigger_id: str, delivery_id: str) -> dict[str, Any] | None:
        def q(tx: Tx) -> dict[str, Any] | None:
            for (record,) in tx.execute(
                "SELECT record FROM automations_v2_webhook_deliveries "
                "WHERE trigger_id = ? AND delivery_id = ?",
                (trigger_id, delivery_id),
            ):
                return dict(loads(record))
            return None

        return await self.db.read(q)

    async def deliveries(self, trigger_id: str, limit: int) -> list[dict[str, Any]]:
        """Newest first."""

        def q(tx: Tx) -> list[dict[str, Any]]:
            return [
                dict(loads(r[0]))
                for r in tx.execute(
                    "SELECT record FROM automations_v2_webhook_deliveries WHERE trigger_id = ? "
                    "ORDER BY seq DESC LIMIT ?",
                    (trigger_id, limit),
                )
            ]

        return await self.db.read(q)

    async def counts(self, trigger_id: str) -> dict[str, int]:
        def q(tx: Tx) -> dict[str, int]:
            return {
                str(status): int(n)
                for status, n in tx.execute(
                    "SELECT status, COUNT(*) FROM automations_v2_webhook_deliveries "
                    "WHERE trigger_id = ? GROUP BY status",
                    (trigger_id,),
                )
            }

        return await self.db.read(q)


__all__ = ["DELIVERIES_KEPT", "WebhookRepository"]
