"""Optimization campaigns and their experiments, stored as JSON records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..store import Store, Tx, dumps, loads


def _campaign(tx: Tx, campaign_id: str) -> dict[str, Any] | None:
    value = tx.execute(
        "SELECT record FROM optimization_campaigns WHERE campaign_id = ?", (campaign_id,)
    ).scalar()
    return loads(value) if value is not None else None


def _campaigns(tx: Tx, limit: int) -> list[dict[str, Any]]:
    rows = tx.execute(
        "SELECT record FROM optimization_campaigns "
        "ORDER BY created_at_ms DESC, campaign_id LIMIT ?",
        (limit,),
    )
    return [loads(r[0]) for r in rows]


def _insert_campaign(tx: Tx, record: dict[str, Any]) -> None:
    tx.execute(
        "INSERT INTO optimization_campaigns (campaign_id, record, created_at_ms, updated_at_ms) "
        "VALUES (?, ?, ?, ?)",
        (
            record["optimization_id"],
            dumps(record),
            record["created_at_ms"],
            record["updated_at_ms"],
        ),
    )


def _update_campaign(
    tx: Tx, campaign_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any] | None:
    current = _campaign(tx, campaign_id)
    if current is None:
        return None
    updated = change(current)
    tx.execute(
        "UPDATE optimization_campaigns SET record = ?, updated_at_ms = ? WHERE campaign_id = ?",
        (dumps(updated), updated["updated_at_ms"], campaign_id),
    )
    return updated


def _experiments(tx: Tx, campaign_id: str) -> list[dict[str, Any]]:
    rows = tx.execute(
        "SELECT record FROM optimization_experiments WHERE campaign_id = ? "
        "ORDER BY created_at_ms, experiment_id",
        (campaign_id,),
    )
    return [loads(r[0]) for r in rows]


def _experiment(tx: Tx, campaign_id: str, experiment_id: str) -> dict[str, Any] | None:
    value = tx.execute(
        "SELECT record FROM optimization_experiments WHERE campaign_id = ? AND experiment_id = ?",
        (campaign_id, experiment_id),
    ).scalar()
    return loads(value) if value is not None else None


def _put_experiment(tx: Tx, record: dict[str, Any]) -> None:
    tx.execute(
        "INSERT INTO optimization_experiments "
        "(campaign_id, experiment_id, record, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (campaign_id, experiment_id) DO UPDATE SET record = excluded.record, "
        "updated_at_ms = excluded.updated_at_ms",
        (
            record["optimization_id"],
            record["experiment_id"],
            dumps(record),
            record["created_at_ms"],
            record["updated_at_ms"],
        ),
    )


def _apply_winner(
    tx: Tx,
    campaign_id: str,
    experiment_id: str,
    change_campaign: Callable[[dict[str, Any]], dict[str, Any]],
    now_ms: int,
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Mark the experiment the winner and every other one not; change the campaign. One tx."""
    if _experiment(tx, campaign_id, experiment_id) is None:
        return None
    campaign = _update_campaign(tx, campaign_id, change_campaign)
    if campaign is None:
        return None
    winner: dict[str, Any] = {}
    for record in _experiments(tx, campaign_id):
        is_winner = record["experiment_id"] == experiment_id
        if is_winner or record.get("winner"):
            record = {**record, "winner": is_winner, "updated_at_ms": now_ms}
            if is_winner:
                record["status"] = "applied"
                winner = record
            elif record.get("status") == "applied":
                record["status"] = "recorded"
            _put_experiment(tx, record)
    return campaign, winner


class OptimizationRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    async def campaign(self, campaign_id: str) -> dict[str, Any] | None:
        return await self._store.read(_campaign, campaign_id)

    async def campaigns(self, *, limit: int = 500) -> list[dict[str, Any]]:
        return await self._store.read(_campaigns, limit)

    async def insert_campaign(self, record: dict[str, Any]) -> None:
        await self._store.write(_insert_campaign, record)

    async def update_campaign(
        self, campaign_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> dict[str, Any] | None:
        """Apply ``change`` to the stored record in one transaction; None when absent."""
        return await self._store.write(_update_campaign, campaign_id, change)

    async def experiments(self, campaign_id: str) -> list[dict[str, Any]]:
        return await self._store.read(_experiments, campaign_id)

    async def experiment(self, campaign_id: str, experiment_id: str) -> dict[str, Any] | None:
        return await self._store.read(_experiment, campaign_id, experiment_id)

    async def put_experiment(self, record: dict[str, Any]) -> None:
        await self._store.write(_put_experiment, record)

    async def apply_winner(
        self,
        campaign_id: str,
        experiment_id: str,
        change_campaign: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        now_ms: int,
    ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        return await self._store.write(
            _apply_winner, campaign_id, experiment_id, change_campaign, now_ms
        )


__all__ = ["OptimizationRepository"]
