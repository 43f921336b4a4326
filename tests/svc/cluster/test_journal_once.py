"""A fire journal row becomes runs once, even when two replicas both materialize it.

A leader cut off from the database loses the scheduler's lock; the next leader
recovers the journal and materializes the row; the old leader, reconnected,
still holds the row in memory and materializes it too. The second attempt must
find the row gone and write nothing.
"""

from __future__ import annotations

from svc.automations.routines.records import RoutineRun
from svc.automations.routines.repository import RoutineRepository
from svc.automations.scheduler.journal_repository import JournalRepository
from svc.store import Store, dumps


def _run(run_id: str) -> RoutineRun:
    snapshot = {"entrypoint": "noop"}
    return RoutineRun(
        run_id=run_id,
        routine_id="every-second",
        trigger_type="scheduled",
        status="queued",
        created_at_ms=1000,
        updated_at_ms=1000,
        fired_at_ms=1000,
        snapshot=snapshot,
        snapshot_json=dumps(snapshot),
        scheduled_at_ms=1000,
    )


async def test_a_journal_row_materialized_by_two_replicas_makes_its_runs_once(
    store_backend: Store,
) -> None:
    journal = JournalRepository(store_backend)
    (seq,) = await journal.insert([("routine", 1000, '[["every-second",[1000],2000,null]]')])
    # Two replicas' repositories on the one database, each with its own copy of the row.
    new_leader, old_leader = RoutineRepository(store_backend), RoutineRepository(store_backend)
    first = await new_leader.materialize(seq, [], [_run("run-by-new-leader")])
    second = await old_leader.materialize(seq, [], [_run("run-by-old-leader")])
    runs = await new_leader.runs(routine_id="every-second")
    assert [r.run_id for r in runs] == ["run-by-new-leader"]  # not fired twice
    assert (first, second) == (True, False)  # the old leader is told, so it admits nothing
    assert await journal.stored() == []
