"""Storage of the governance state humans set per agent (``automations_agent_governance``)."""

from __future__ import annotations

from ..store import Store, Tx, dumps, loads
from .agent_state import AgentState

_COLS = (
    "creation_paused, paused_reason, reviewed_creations, quota_override_until_ms, "
    "capability_grants, updated_at_ms"
)


class GovernanceRepository:
    def __init__(self, db: Store) -> None:
        self.db = db

    async def state(self, agent_id: str) -> AgentState:
        """The agent's state; the defaults when humans never set any."""

        def q(tx: Tx) -> AgentState:
            for row in tx.execute(
                f"SELECT {_COLS} FROM automations_agent_governance WHERE agent_id = ?",
                (agent_id,),
            ):
                return AgentState(
                    agent_id, bool(row[0]), row[1], int(row[2]), row[3], loads(row[4], {}), row[5]
                )
            return AgentState(agent_id)

        return await self.db.read(q)

    async def save(self, state: AgentState) -> None:
        row = (
            state.agent_id,
            int(state.creation_paused),
            state.paused_reason,
            state.reviewed_creations,
            state.quota_override_until_ms,
            dumps(dict(state.capability_grants)),
            state.updated_at_ms,
        )

        def q(tx: Tx) -> None:
            tx.execute(
                f"INSERT INTO automations_agent_governance(agent_id, {_COLS}) "
                "VALUES (?,?,?,?,?,?,?) ON CONFLICT(agent_id) DO UPDATE SET "
                + ", ".join(f"{c.strip()} = excluded.{c.strip()}" for c in _COLS.split(",")),
                row,
            )

        await self.db.write(q)


__all__ = ["GovernanceRepository"]
