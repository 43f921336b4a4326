"""Agent-team storage: instances, spawn approvals and mission counters (migration 006).

Every method is one round trip to the store. Instance actors write through
(status, run, usage), so listings and rollups read the store, and a restart
finds everything where it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from supervisors import BudgetUsage

from ..store import Store, Tx, dumps, loads

if TYPE_CHECKING:
    from .gate import SpawnCounts
    from .records import Instance, MissionState, SpawnApproval

# The records are imported by the functions that build or write them: a fresh store has no
# agent-team row, so start-up never loads them (docs/architecture.md, "Start-up budget").

_INSTANCE_COLS = (
    "id, mission_id, parent_instance_id, role, template_id, session_id, run_id, status, budget, "
    "usage, skill_hash, capabilities, source, justification, workspace_root, prompt, "
    "system_prompt, reason, exhausted_by, created_at_ms, updated_at_ms, ended_at_ms"
)

_APPROVAL_COLS = "id, request, decision_code, reason, created_at_ms"

_MISSION_COLS = (
    "id, limits, usage, exhausted_by, cancelled_at_ms, cancel_reason, created_at_ms, updated_at_ms"
)


def _instance_row(i: Instance) -> tuple[Any, ...]:
    from .records import limits_to_wire, usage_to_wire

    return (
        i.id,
        i.mission_id,
        i.parent_instance_id,
        i.role,
        i.template_id,
        i.session_id,
        i.run_id,
        i.status,
        dumps(limits_to_wire(i.budget)),
        dumps(usage_to_wire(i.usage)) if i.usage is not None else None,
        i.skill_hash,
        dumps(i.capabilities.to_wire()),
        i.source,
        i.justification,
        i.workspace_root,
        i.prompt,
        i.system_prompt,
        i.reason,
        i.exhausted_by,
        i.created_at_ms,
        i.updated_at_ms,
        i.ended_at_ms,
    )


def _instance(row: tuple[Any, ...]) -> Instance:
    from .records import Instance, limits_from_wire, usage_from_wire
    from .templates import Capabilities

    usage = loads(row[9])
    return Instance(
        id=row[0],
        mission_id=row[1],
        parent_instance_id=row[2],
        role=row[3],
        template_id=row[4],
        session_id=row[5],
        run_id=row[6],
        status=row[7],
        budget=limits_from_wire(loads(row[8], {})),
        usage=usage_from_wire(usage) if usage is not None else None,
        skill_hash=row[10],
        capabilities=Capabilities.from_wire(loads(row[11], {})),
        source=row[12],
        justification=row[13],
        workspace_root=row[14],
        prompt=row[15],
        system_prompt=row[16],
        reason=row[17],
        exhausted_by=row[18],
        created_at_ms=row[19],
        updated_at_ms=row[20],
        ended_at_ms=row[21],
    )


def _approval(row: tuple[Any, ...]) -> SpawnApproval:
    from .records import SpawnApproval, SpawnRequest

    return SpawnApproval(
        id=row[0],
        request=SpawnRequest.from_wire(loads(row[1], {})),
        decision_code=row[2],
        reason=row[3],
        created_at_ms=row[4],
    )


def _mission(row: tuple[Any, ...]) -> MissionState:
    from .records import MissionState, limits_from_wire, usage_from_wire

    return MissionState(
        id=row[0],
        limits=limits_from_wire(loads(row[1], {})),
        usage=usage_from_wire(loads(row[2], {})),
        exhausted_by=row[3],
        cancelled_at_ms=row[4],
        cancel_reason=row[5],
        created_at_ms=row[6],
        updated_at_ms=row[7],
    )


def _upsert(table: str, cols: str) -> str:
    """Insert a whole row, or overwrite every column of the row with its id."""
    names = [c.strip() for c in cols.split(",")]
    slots = ",".join("?" * len(names))
    updates = ", ".join(f"{c} = excluded.{c}" for c in names if c != "id")
    return f"INSERT INTO {table}({cols}) VALUES ({slots}) ON CONFLICT (id) DO UPDATE SET {updates}"


_UPSERT_INSTANCE = _upsert("teams_instances", _INSTANCE_COLS)
_UPSERT_MISSION = _upsert("teams_missions", _MISSION_COLS)


def _upsert_instance(tx: Tx, instance: Instance) -> None:
    tx.execute(_UPSERT_INSTANCE, _instance_row(instance))


def _upsert_mission(tx: Tx, m: MissionState) -> None:
    from .records import limits_to_wire, usage_to_wire

    tx.execute(
        _UPSERT_MISSION,
        (
            m.id,
            dumps(limits_to_wire(m.limits)),
            dumps(usage_to_wire(m.usage)),
            m.exhausted_by,
            m.cancelled_at_ms,
            m.cancel_reason,
            m.created_at_ms,
            m.updated_at_ms,
        ),
    )


class TeamsRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    # ------------------------------------------------------------------ instances
    async def save_instance(
        self,
        instance: Instance,
        *,
        mission_usage: BudgetUsage | None = None,
        mission_exhausted_by: str | None = None,
    ) -> None:
        """Insert or replace ``instance``; with ``mission_usage``, update its mission's counters in
        the same transaction (a crash never leaves the two disagreeing), and with
        ``mission_exhausted_by`` the limit that exhausted the mission."""
        from .records import usage_to_wire

        def q(tx: Tx) -> None:
            _upsert_instance(tx, instance)
            if mission_usage is not None:
                tx.execute(
                    "UPDATE teams_missions SET usage = ?, updated_at_ms = ?,"
                    " exhausted_by = COALESCE(?, exhausted_by) WHERE id = ?",
                    (
                        dumps(usage_to_wire(mission_usage)),
                        instance.updated_at_ms,
                        mission_exhausted_by,
                        instance.mission_id,
                    ),
                )

        await self._db.write(q)

    async def get_instance(self, instance_id: str) -> Instance | None:
        def q(tx: Tx) -> Instance | None:
            row = tx.execute(
                f"SELECT {_INSTANCE_COLS} FROM teams_instances WHERE id = ?", (instance_id,)
            ).fetchone()
            return _instance(row) if row else None

        return await self._db.read(q)

    async def instance_by_session(self, session_id: str) -> Instance | None:
        def q(tx: Tx) -> Instance | None:
            row = tx.execute(
                f"SELECT {_INSTANCE_COLS} FROM teams_instances WHERE session_id = ?", (session_id,)
            ).fetchone()
            return _instance(row) if row else None

        return await self._db.read(q)

    async def instances(
        self,
        *,
        mission_id: str | None = None,
        parent_instance_id: str | None = None,
        status: str | None = None,
    ) -> list[Instance]:
        """Matching instances, sorted by id."""
        clauses, params = [], []
        for column, value in (
            ("mission_id", mission_id),
            ("parent_instance_id", parent_instance_id),
            ("status", status),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""

        def q(tx: Tx) -> list[Instance]:
            sql = f"SELECT {_INSTANCE_COLS} FROM teams_instances {where} ORDER BY id"
            return [_instance(r) for r in tx.execute(sql, tuple(params))]

        return await self._db.read(q)

    async def counts(self) -> SpawnCounts:
        from .gate import SpawnCounts

        def q(tx: Tx) -> SpawnCounts:
            row = tx.execute(
                "SELECT COUNT(*), COALESCE(SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END), 0)"
                " FROM teams_instances"
            ).fetchone()
            total, running = row if row is not None else (0, 0)
            return SpawnCounts(total=total, running=running)

        return await self._db.read(q)

    # ------------------------------------------------------------------ approvals
    async def add_approval(self, approval: SpawnApproval) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO teams_spawn_approvals"
                "(id, mission_id, request, decision_code, reason, created_at_ms)"
                " VALUES (?,?,?,?,?,?)",
                (
                    approval.id,
                    approval.mission_id,
                    dumps(approval.request.to_wire()),
                    approval.decision_code,
                    approval.reason,
                    approval.created_at_ms,
                ),
            )

        await self._db.write(q)

    async def take_approval(self, approval_id: str) -> SpawnApproval | None:
        """Remove a pending approval and return it (None if there was none): it is decided once."""

        def q(tx: Tx) -> SpawnApproval | None:
            row = tx.execute(
                f"SELECT {_APPROVAL_COLS} FROM teams_spawn_approvals WHERE id = ?",
                (approval_id,),
            ).fetchone()
            if row is None:
                return None
            tx.execute("DELETE FROM teams_spawn_approvals WHERE id = ?", (approval_id,))
            return _approval(row)

        return await self._db.write(q)

    async def approvals(self) -> list[SpawnApproval]:
        def q(tx: Tx) -> list[SpawnApproval]:
            sql = f"SELECT {_APPROVAL_COLS} FROM teams_spawn_approvals ORDER BY created_at_ms, id"
            return [_approval(r) for r in tx.execute(sql)]

        return await self._db.read(q)

    # ------------------------------------------------------------------ missions
    async def mission(self, mission_id: str) -> MissionState | None:
        def q(tx: Tx) -> MissionState | None:
            row = tx.execute(
                f"SELECT {_MISSION_COLS} FROM teams_missions WHERE id = ?", (mission_id,)
            ).fetchone()
            return _mission(row) if row else None

        return await self._db.read(q)

    async def save_mission(self, mission: MissionState) -> None:
        await self._db.write(_upsert_mission, mission)

    async def rollup_rows(self) -> tuple[list[tuple[str, str, Any]], list[str], list[MissionState]]:
        """(mission, status, usage JSON) of every instance, the mission of every pending approval,
        and every mission's counters: what ``GET /agent-team/missions`` is computed from."""

        def q(
            tx: Tx,
        ) -> tuple[list[tuple[str, str, Any]], list[str], list[MissionState]]:
            rows = [
                (r[0], r[1], loads(r[2]))
                for r in tx.execute("SELECT mission_id, status, usage FROM teams_instances")
            ]
            queued = [r[0] for r in tx.execute("SELECT mission_id FROM teams_spawn_approvals")]
            missions = [
                _mission(r) for r in tx.execute(f"SELECT {_MISSION_COLS} FROM teams_missions")
            ]
            return rows, queued, missions

        return await self._db.read(q)


__all__ = ["TeamsRepository"]
