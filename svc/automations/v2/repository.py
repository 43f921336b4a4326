"""Storage of automations v2 and their runs (tables ``automations_v2``, ``automations_v2_runs``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ...store import Store, Tx, dumps, loads
from ..scheduler.journal_repository import delete_row

if TYPE_CHECKING:
    from .records import AutomationV2, AutomationV2Run

# The records are imported where rows become records (_automation, _run): a fresh store
# has none to read at start-up (docs/architecture.md, "Start-up budget").

_AUTOMATION_COLS = (
    "automation_id, name, status, spec, creator_kind, creator_id, provenance, next_fire_at_ms, "
    "last_fired_at_ms, created_at_ms, updated_at_ms"
)
_AUTOMATION_INSERT = (
    f"INSERT INTO automations_v2({_AUTOMATION_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
)
# The store assigns `seq` (creation order, which orders runs created in the same
# millisecond); the upsert keeps it.
_RUN_INSERT = (
    "INSERT INTO automations_v2_runs(run_id, automation_id, status, trigger_type, "
    "created_at_ms, updated_at_ms, record) VALUES (?,?,?,?,?,?,?)"
)


def _automation_row(a: AutomationV2) -> tuple[Any, ...]:
    return (
        a.automation_id,
        a.name,
        a.status,
        dumps(a.spec),
        a.creator_kind,
        a.creator_id,
        dumps(a.provenance),
        a.next_fire_at_ms,
        a.last_fired_at_ms,
        a.created_at_ms,
        a.updated_at_ms,
    )


def _automation(row: tuple[Any, ...]) -> AutomationV2:
    from .records import AutomationV2

    return AutomationV2(
        automation_id=row[0],
        name=row[1],
        status=row[2],
        spec=loads(row[3]),
        creator_kind=row[4],
        creator_id=row[5],
        provenance=loads(row[6], {}),
        next_fire_at_ms=row[7],
        last_fired_at_ms=row[8],
        created_at_ms=row[9],
        updated_at_ms=row[10],
    )


def _kept_fire_times(tx: Tx, row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``row`` (of :func:`_automation_row`), with the stored fire times if they are newer
    and the status and schedule are unchanged.

    Replicas on one store: an edit served by a standby carries the fire times
    of its memory, which the scheduler's leader has moved on since (see
    ``_kept_fire_times`` of the routines repository). Alone on its store an
    engine's memory is never behind the store, so this never applies there.
    """
    stored = tx.execute(
        "SELECT status, spec, next_fire_at_ms, last_fired_at_ms FROM automations_v2 "
        "WHERE automation_id = ?",
        (row[0],),
    ).fetchone()
    if stored is None or stored[3] is None or stored[3] <= (row[8] or 0):
        return row
    schedule = loads(row[3], {}).get("schedule")
    if stored[0] != row[2] or loads(stored[1], {}).get("schedule") != schedule:
        return row
    return (*row[:7], stored[2], stored[3], *row[9:])


def _run(record: str) -> AutomationV2Run:
    from .records import AutomationV2Run

    return AutomationV2Run.from_record(loads(record))


run_from_record = _run
"""A stored run record (JSON) as a run (for the claims repository)."""


def _run_row(r: AutomationV2Run) -> tuple[Any, ...]:
    return (
        r.run_id,
        r.automation_id,
        r.status,
        r.trigger_type,
        r.created_at_ms,
        r.updated_at_ms,
        dumps(r.to_record()),
    )


class V2Repository:
    def __init__(self, db: Store) -> None:
        self.db = db

    # ------------------------------------------------------------------ automations
    async def all(self) -> list[AutomationV2]:
        def q(tx: Tx) -> list[AutomationV2]:
            return [
                _automation(r)
                for r in tx.execute(
                    f"SELECT {_AUTOMATION_COLS} FROM automations_v2 ORDER BY created_at_ms, seq"
                )
            ]

        return await self.db.read(q)

    async def stored_automation(self, automation_id: str) -> AutomationV2 | None:
        """One automation as the store has it (another replica may have changed it)."""

        def q(tx: Tx) -> AutomationV2 | None:
            for r in tx.execute(
                f"SELECT {_AUTOMATION_COLS} FROM automations_v2 WHERE automation_id = ?",
                (automation_id,),
            ):
                return _automation(r)
            return None

        return await self.db.read(q)

    async def save(self, automation: AutomationV2) -> None:
        row = _automation_row(automation)

        def q(tx: Tx) -> None:
            tx.execute(
                f"{_AUTOMATION_INSERT} ON CONFLICT(automation_id) DO UPDATE SET "
                + ", ".join(
                    f"{c.strip()} = excluded.{c.strip()}" for c in _AUTOMATION_COLS.split(",")[1:]
                ),
                _kept_fire_times(tx, row),
            )

        await self.db.write(q)

    async def delete(self, automation_id: str) -> None:
        await self.db.write(
            lambda tx: tx.execute(
                "DELETE FROM automations_v2 WHERE automation_id = ?", (automation_id,)
            )
        )

    async def materialize(
        self, seq: int, automations: Iterable[AutomationV2], runs: Iterable[AutomationV2Run]
    ) -> bool:
        """A fire journal row becomes runs: the row's deletion, the runs and the fire times,
        in one transaction. False (and nothing written) if another replica already did."""
        moved = [(a.next_fire_at_ms, a.last_fired_at_ms, a.automation_id) for a in automations]
        rows = [_run_row(r) for r in runs]

        def q(tx: Tx) -> bool:
            if not delete_row(tx, seq):
                return False
            tx.executemany(
                "UPDATE automations_v2 SET next_fire_at_ms = ?, last_fired_at_ms = ? "
                "WHERE automation_id = ?",
                moved,
            )
            tx.executemany(_RUN_INSERT, rows)
            return True

        return await self.db.write(q)

    # ------------------------------------------------------------------ runs
    async def save_run(self, run: AutomationV2Run) -> None:
        row = _run_row(run)
        await self.db.write(
            lambda tx: tx.execute(
                f"{_RUN_INSERT} ON CONFLICT(run_id) DO UPDATE SET status = excluded.status, "
                "updated_at_ms = excluded.updated_at_ms, record = excluded.record",
                row,
            )
        )

    async def get_run(self, run_id: str) -> AutomationV2Run | None:
        def q(tx: Tx) -> AutomationV2Run | None:
            for (record,) in tx.execute(
                "SELECT record FROM automations_v2_runs WHERE run_id = ?", (run_id,)
            ):
                return _run(record)
            return None

        return await self.db.read(q)

    async def runs(
        self,
        *,
        automation_id: str | None = None,
        statuses: Iterable[str] | None = None,
        limit: int = 50,
    ) -> list[AutomationV2Run]:
        """Newest first."""
        clauses, params = [], []
        if automation_id is not None:
            clauses.append("automation_id = ?")
            params.append(automation_id)
        wanted = list(statuses or ())
        if wanted:
            clauses.append(f"status IN ({','.join('?' * len(wanted))})")
            params.extend(wanted)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""

        def q(tx: Tx) -> list[AutomationV2Run]:
            return [
                _run(r[0])
                for r in tx.execute(
                    f"SELECT record FROM automations_v2_runs {where} ORDER BY seq DESC LIMIT ?",
                    (*params, limit),
                )
            ]

        return await self.db.read(q)

    async def save_agent_created(self, automation: AutomationV2) -> None:
        """Store an agent-created automation and its entry in the agent's creation ledger."""
        row = _automation_row(automation)

        def q(tx: Tx) -> None:
            tx.execute(_AUTOMATION_INSERT, row)
            tx.execute(
                "INSERT INTO automations_agent_creations(agent_id, automation_id, created_at_ms) "
                "VALUES (?, ?, ?)",
                (automation.creator_id, automation.automation_id, automation.created_at_ms),
            )

        await self.db.write(q)

    async def creations_by(self, agent_id: str, since_ms: int) -> tuple[int, int, int]:
        """(creations ever, creations since ``since_ms``, the agent's automations not retired)."""

        def q(tx: Tx) -> tuple[int, int, int]:
            total, recent = next(
                tx.execute(
                    "SELECT COUNT(*), "
                    "COALESCE(SUM(CASE WHEN created_at_ms >= ? THEN 1 ELSE 0 END), 0) "
                    "FROM automations_agent_creations WHERE agent_id = ?",
                    (since_ms, agent_id),
                )
            )
            (active,) = next(
                tx.execute(
                    "SELECT COUNT(*) FROM automations_v2 WHERE creator_kind = 'agent' "
                    "AND creator_id = ? AND status != 'retired'",
                    (agent_id,),
                )
            )
            return int(total), int(recent), int(active)

        return await self.db.read(q)

    async def spend_by(self, creator_id: str, since_ms: int) -> float:
        """Estimated cost of runs since ``since_ms`` of automations the agent created."""

        def q(tx: Tx) -> float:
            total = 0.0
            for (record,) in tx.execute(
                "SELECT r.record FROM automations_v2_runs r "
                "JOIN automations_v2 a USING (automation_id) "
                "WHERE a.creator_kind = 'agent' AND a.creator_id = ? AND r.created_at_ms >= ?",
                (creator_id, since_ms),
            ):
                total += float((loads(record).get("usage") or {}).get("estimated_cost_usd") or 0.0)
            return total

        return await self.db.read(q)


__all__ = ["V2Repository", "run_from_record"]
