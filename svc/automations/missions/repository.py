"""Storage of missions (table ``automations_missions``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store import Store, Tx, dumps, loads

if TYPE_CHECKING:
    from .model import Mission

# The model is imported where rows become missions: start-up reads none
# (docs/architecture.md, "Start-up budget").


class MissionRepository:
    def __init__(self, db: Store) -> None:
        self.db = db

    async def save(self, mission: Mission) -> None:
        row = (
            mission.mission_id,
            mission.status,
            mission.revision,
            dumps(mission.to_wire()),
            mission.created_at_ms,
            mission.updated_at_ms,
        )
        await self.db.write(
            lambda tx: tx.execute(
                "INSERT INTO automations_missions(mission_id, status, revision, record, created_at_ms, updated_at_ms) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT(mission_id) DO UPDATE SET status = excluded.status, "
                "revision = excluded.revision, record = excluded.record, updated_at_ms = excluded.updated_at_ms",
                row,
            )
        )

    async def get(self, mission_id: str) -> Mission | None:
        from .model import Mission

        def q(tx: Tx) -> Mission | None:
            for (record,) in tx.execute(
                "SELECT record FROM automations_missions WHERE mission_id = ?", (mission_id,)
            ):
                return Mission.from_wire(loads(record))
            return None

        return await self.db.read(q)

    async def list(self, limit: int = 500) -> list[Mission]:
        from .model import Mission

        def q(tx: Tx) -> list[Mission]:
            return [
                Mission.from_wire(loads(r[0]))
                for r in tx.execute(
                    "SELECT record FROM automations_missions ORDER BY created_at_ms DESC, rowid DESC LIMIT ?",
                    (limit,),
                )
            ]

        return await self.db.read(q)


__all__ = ["MissionRepository"]
