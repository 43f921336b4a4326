"""Storage of routines and their runs (``automations_routines``, ``automations_routine_runs``).

Run records are saved through a :class:`~svc.automations.batching.GroupWriter`,
so the saves of many runs finishing together share one transaction; a fire
journal row becomes its runs, fire times and deletion in one transaction too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ...store import Store, Tx, dumps, loads
from ..batching import GroupWriter
from ..scheduler.journal_repository import delete_row

if TYPE_CHECKING:
    from .records import Routine, RoutineRun

# The records (and the schedule parser) are imported where rows become records (_run,
# _routine): a fresh store has none to read at start-up (docs/architecture.md,
# "Start-up budget").

_RUN_COLS = (
    "run_id, routine_id, status, trigger_type, run_count, created_at_ms, updated_at_ms, "
    "fired_at_ms, scheduled_at_ms, started_at_ms, finished_at_ms, requires_approval, "
    "approval_reason, denial_reason, paused_reason, detail, snapshot, artifacts, session_ids, "
    "latest_session_id, model, prompt_tokens, completion_tokens, total_tokens, estimated_cost_usd"
)
# Runs a tick creates are new (fresh ids): a plain insert, cheaper than the upsert.
# The store assigns `seq` (creation order, which orders runs created in the same
# millisecond).
_RUN_INSERT_NEW = f"INSERT INTO automations_routine_runs({_RUN_COLS}) VALUES ({','.join('?' * 25)})"
# An upsert rather than a replace: the row keeps its seq.
_RUN_INSERT = f"{_RUN_INSERT_NEW} ON CONFLICT(run_id) DO UPDATE SET " + ", ".join(
    f"{c.strip()} = excluded.{c.strip()}" for c in _RUN_COLS.split(",")[1:]
)
_MOVE_FIRE_TIMES = (
    "UPDATE automations_routine_fire_times SET next_fire_at_ms = ?, last_fired_at_ms = ? "
    "WHERE routine_id = ?"
)


def run_row(r: RoutineRun) -> tuple[Any, ...]:
    return (
        r.run_id,
        r.routine_id,
        r.status,
        r.trigger_type,
        r.run_count,
        r.created_at_ms,
        r.updated_at_ms,
        r.fired_at_ms,
        r.scheduled_at_ms,
        r.started_at_ms,
        r.finished_at_ms,
        int(r.requires_approval),
        r.approval_reason,
        r.denial_reason,
        r.paused_reason,
        r.detail,
        r.snapshot_json,
        dumps(list(r.artifacts)) if r.artifacts else "[]",
        dumps(list(r.session_ids)) if r.session_ids else "[]",
        r.latest_session_id,
        dumps(r.model) if r.model is not None else None,
        r.prompt_tokens,
        r.completion_tokens,
        r.total_tokens,
        r.estimated_cost_usd,
    )


def _run(row: tuple[Any, ...]) -> RoutineRun:
    from .records import RoutineRun

    return RoutineRun(
        run_id=row[0],
        routine_id=row[1],
        status=row[2],
        trigger_type=row[3],
        run_count=row[4],
        created_at_ms=row[5],
        updated_at_ms=row[6],
        fired_at_ms=row[7],
        scheduled_at_ms=row[8],
        started_at_ms=row[9],
        finished_at_ms=row[10],
        requires_approval=bool(row[11]),
        approval_reason=row[12],
        denial_reason=row[13],
        paused_reason=row[14],
        detail=row[15],
        snapshot=loads(row[16], {}),
        snapshot_json=row[16],
        artifacts=tuple(loads(row[17], [])),
        session_ids=tuple(loads(row[18], [])),
        latest_session_id=row[19],
        model=loads(row[20]),
        prompt_tokens=row[21],
        completion_tokens=row[22],
        total_tokens=row[23],
        estimated_cost_usd=row[24],
    )


Stored = tuple["Routine", int | None, int | None]
"""A routine with its ``next_fire_at_ms`` and ``last_fired_at_ms``."""


def _routine(row: tuple[Any, ...]) -> Stored:
    from ..scheduler.schedule import parse_routine_schedule
    from .records import Routine

    record = loads(row[1])
    schedule, misfire = parse_routine_schedule(
        record["schedule"],
        record.get("timezone"),
        record.get("misfire_policy"),
        code="ROUTINE_INVALID",
    )
    routine = Routine(
        routine_id=record["routine_id"],
        name=record["name"],
        status=row[0],
        schedule=schedule,
        misfire=misfire,
        entrypoint=record["entrypoint"],
        args=record.get("args") or {},
        allowed_tools=tuple(record.get("allowed_tools") or ()),
        output_targets=tuple(record.get("output_targets") or ()),
        requires_approval=bool(record.get("requires_approval")),
        external_integrations_allowed=bool(record.get("external_integrations_allowed")),
        created_at_ms=record["created_at_ms"],
        updated_at_ms=record["updated_at_ms"],
        creator_type=record.get("creator_type") or "user",
        creator_id=record.get("creator_id") or "unknown",
    )
    return routine, row[2], row[3]


_TIMING_KEYS = ("status", "schedule", "timezone", "misfire_policy")


def _kept_fire_times(
    tx: Tx, definition: dict[str, Any], next_fire: int | None, last_fired: int | None
) -> tuple[str, int | None, int | None]:
    """The fire times to store with an edited routine: the caller's, unless the store's
    are newer for the same timing.

    Replicas on one store: an edit served by a standby carries the fire times of
    the standby's memory, which the scheduler's leader has moved on since (it
    writes them as its fires become runs). When the edit leaves the timing as it
    was, the newer stored times stay, so a later leader does not fire those
    slots again. Alone on its store an engine's memory is never behind the
    store, so this never applies there.
    """
    routine_id = definition["routine_id"]
    stored = tx.execute(
        "SELECT r.record, f.next_fire_at_ms, f.last_fired_at_ms FROM automations_routines r "
        "JOIN automations_routine_fire_times f USING (routine_id) WHERE r.routine_id = ?",
        (routine_id,),
    ).fetchone()
    if stored is not None and stored[2] is not None and stored[2] > (last_fired or 0):
        previous = loads(stored[0], {})
        timing = loads(dumps({k: definition.get(k) for k in _TIMING_KEYS}))  # as stored
        if all(previous.get(k) == timing[k] for k in _TIMING_KEYS):
            return routine_id, stored[1], stored[2]
    return routine_id, next_fire, last_fired


def _save_runs(tx: Tx, runs: Sequence[RoutineRun]) -> None:
    tx.executemany(_RUN_INSERT, [run_row(r) for r in runs])


class RoutineRepository:
    def __init__(self, db: Store) -> None:
        self.db = db
        self.run_writer: GroupWriter[RoutineRun] = GroupWriter(self._flush_runs)

    async def _flush_runs(self, runs: Sequence[RoutineRun]) -> None:
        await self.db.write(_save_runs, runs)

    # ------------------------------------------------------------------ routines
    async def all(self) -> list[Stored]:
        def q(tx: Tx) -> list[Stored]:
            return [
                _routine(r)
                for r in tx.execute(
                    "SELECT r.status, r.record, f.next_fire_at_ms, f.last_fired_at_ms "
                    "FROM automations_routines r "
                    "LEFT JOIN automations_routine_fire_times f USING (routine_id) "
                    "ORDER BY r.created_at_ms, r.seq"
                )
            ]

        return await self.db.read(q)

    async def stored_routine(self, routine_id: str) -> Stored | None:
        """One routine as the store has it (another replica may have changed it)."""

        def q(tx: Tx) -> Stored | None:
            for r in tx.execute(
                "SELECT r.status, r.record, f.next_fire_at_ms, f.last_fired_at_ms "
                "FROM automations_routines r "
                "LEFT JOIN automations_routine_fire_times f USING (routine_id) "
                "WHERE r.routine_id = ?",
                (routine_id,),
            ):
                return _routine(r)
            return None

        return await self.db.read(q)

    async def save(
        self, routine: Routine, next_fire_at_ms: int | None, last_fired_at_ms: int | None
    ) -> None:
        definition = routine.definition()
        row = (
            routine.routine_id,
            routine.status,
            dumps(definition),
            routine.created_at_ms,
            routine.updated_at_ms,
        )

        def q(tx: Tx) -> None:
            times = _kept_fire_times(tx, definition, next_fire_at_ms, last_fired_at_ms)
            tx.execute(
                "INSERT INTO automations_routines(routine_id, status, record, created_at_ms, "
                "updated_at_ms) VALUES (?,?,?,?,?) ON CONFLICT(routine_id) DO UPDATE SET "
                "status = excluded.status, record = excluded.record, "
                "updated_at_ms = excluded.updated_at_ms",
                row,
            )
            tx.execute(
                "INSERT INTO automations_routine_fire_times(routine_id, next_fire_at_ms, "
                "last_fired_at_ms) VALUES (?,?,?) ON CONFLICT(routine_id) DO UPDATE SET "
                "next_fire_at_ms = excluded.next_fire_at_ms, "
                "last_fired_at_ms = excluded.last_fired_at_ms",
                times,
            )

        await self.db.write(q)

    async def delete(self, routine_id: str) -> None:
        def q(tx: Tx) -> None:
            tx.execute("DELETE FROM automations_routines WHERE routine_id = ?", (routine_id,))
            tx.execute(
                "DELETE FROM automations_routine_fire_times WHERE routine_id = ?", (routine_id,)
            )

        await self.db.write(q)

    async def fire(
        self, moved: Sequence[tuple[int | None, int | None, str]], runs: Iterable[RoutineRun]
    ) -> None:
        """New fire times ``(next_fire_at_ms, last_fired_at_ms, routine_id)`` and the runs
        created, in one transaction."""
        rows = [run_row(r) for r in runs]

        def q(tx: Tx) -> None:
            tx.executemany(_MOVE_FIRE_TIMES, moved)
            tx.executemany(_RUN_INSERT_NEW, rows)

        await self.db.write(q)

    async def materialize(
        self,
        seq: int,
        moved: Sequence[tuple[int | None, int | None, str]],
        runs: Iterable[RoutineRun],
    ) -> bool:
        """A fire journal row becomes runs: the row's deletion, the runs and the fire times,
        in one transaction. False (and nothing written) if another replica already did."""
        rows = [run_row(r) for r in runs]

        def q(tx: Tx) -> bool:
            if not delete_row(tx, seq):
                return False
            tx.executemany(_MOVE_FIRE_TIMES, moved)
            tx.executemany(_RUN_INSERT_NEW, rows)
            return True

        return await self.db.write(q)

    # ------------------------------------------------------------------ runs
    async def save_run(self, run: RoutineRun) -> None:
        await self.run_writer.put(run)

    async def get_run(self, run_id: str) -> RoutineRun | None:
        def q(tx: Tx) -> RoutineRun | None:
            for row in tx.execute(
                f"SELECT {_RUN_COLS} FROM automations_routine_runs WHERE run_id = ?", (run_id,)
            ):
                return _run(row)
            return None

        return await self.db.read(q)

    async def runs(
        self,
        *,
        routine_id: str | None = None,
        statuses: Iterable[str] | None = None,
        limit: int = 100,
    ) -> list[RoutineRun]:
        """Newest first."""
        clauses: list[str] = []
        params: list[Any] = []
        if routine_id is not None:
            clauses.append("routine_id = ?")
            params.append(routine_id)
        wanted = list(statuses or ())
        if wanted:
            clauses.append(f"status IN ({','.join('?' * len(wanted))})")
            params.extend(wanted)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""

        def q(tx: Tx) -> list[RoutineRun]:
            return [
                _run(r)
                for r in tx.execute(
                    f"SELECT {_RUN_COLS} FROM automations_routine_runs {where} "
                    "ORDER BY seq DESC LIMIT ?",
                    (*params, limit),
                )
            ]

        return await self.db.read(q)


__all__ = ["RoutineRepository", "Stored", "run_row"]
