"""Storage of work missions (table ``automations_missions``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store import Store, Tx, dumps, loads

if TYPE_CHECKING:
    from .model import WorkMission

# The model is imported where rows become missions: start-up reads none
# (docs/architecture.md, "Start-up budget").


class WorkMissionRepository:
    def __init__(self, db: Store) -> None:
        self.db = db

    async def save(self, mission: WorkMission) -> None:
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
                "INSERT INTO automations_missions(mission_id, status, revision, record, "
                "created_at_ms, updated_at_ms) VALUES (?,?,?,?,?,?) "
                "ON CONFLICT(mission_id) DO UPDATE SET status = excluded.status, "
                "revision = excluded.revision, record = excluded.record, "
                "updated_at_ms = excluded.updated_at_ms",
                row,
            )
        )

    async def get(self, mission_id: str) -> WorkMission | None:
        from .model import WorkMission

        def q(tx: Tx) -> WorkMission | None:
            for (record,) in tx.execute(
                "SELECT record FROM automations_missions WHERE mission_id = ?", (mission_id,)
            ):
                return WorkMission.from_wire(loads(record))
            return None

        return await self.db.read(q)

    async def recent(self, limit: int = 500) -> list[WorkMission]:
        from .model import WorkMission

        def q(tx: Tx) -> list[WorkMission]:
            return [
                WorkMission.from_wire(loads(r[0]))
                for r in tx.execute(
                    "SELECT record FROM automations_missions "
                    "ORDER BY created_at_ms DESC, seq DESC LIMIT ?",
                    (limit,),
                )
            ]

        return await self.db.read(q)


__all__ = ["WorkMissionRepository"]
