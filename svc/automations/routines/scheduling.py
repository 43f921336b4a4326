"""A routine service as a scheduler and fire-journal target: entries, busy marks, journal rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..scheduler.journal import JournalRow
from ..scheduler.signal import ScheduleEntry
from .decisions import RoutineDecisions

if TYPE_CHECKING:
    from ..scheduler.schedule import MisfirePolicy
    from ..scheduler.timing import FirePlan
    from .records import RoutineRun


# The body parsers, the records, the schedule math and the run execution are imported on
# first use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").


class RoutineScheduling(RoutineDecisions):
    def schedule_entries(self) -> list[ScheduleEntry]:
        return [e for e in (self.entry(r) for r in self._routines) if e is not None]

    def entry(self, routine_id: str) -> ScheduleEntry | None:
        routine = self._routines.get(routine_id)
        if routine is None or routine.status != "active":
            return None
        next_fire = self._next_fire.get(routine_id)
        if next_fire is None or routine.schedule.kind == "manual":
            return None
        return ScheduleEntry("routine", routine_id, routine.schedule, routine.misfire, next_fire)

    def busy(self, routine_id: str) -> bool:
        return routine_id in self._busy or routine_id in self._journaled

    def held(self, routine_ids: list[str]) -> set[str]:
        held = set(filter(self._busy.__contains__, routine_ids)) if self._busy else set()
        if self._journaled:
            held.update(self._journaled.intersection(routine_ids))
        return held

    def missed_reason(self, misfire: MisfirePolicy, plan: FirePlan) -> str:
        return f"misfire: {plan.due} fires were due ({misfire.kind})"

    def journaled(self, row: JournalRow) -> None:
        """A tick's decisions are committed: the fire times move now, the runs come with
        :meth:`materialize`."""
        next_fires, last_fired, routines, journaled = (
            self._next_fire,
            self._last_fired,
            self._routines,
            self._journaled,
        )
        decisions = row.decisions
        ids = decisions.ids
        if not decisions.special:
            # The common case (on-time fires), in bulk. The fire times have an entry
            # per routine, so a routine deleted while the row was being committed
            # shows as one entry too many: take those out again.
            next_fires.update(zip(ids, decisions.nexts, strict=True))
            last_fired.update(zip(ids, decisions.ats, strict=True))
            journaled.update(ids)
            if len(next_fires) != len(routines):
                for routine_id in ids:
                    if routine_id not in routines:
                        next_fires.pop(routine_id, None)
                        last_fired.pop(routine_id, None)
                        journaled.discard(routine_id)
            return
        for routine_id, slots, next_fire, _reason in decisions:
            if routine_id not in routines:
                continue  # deleted while the decision was being committed
            next_fires[routine_id] = next_fire
            if slots:
                last_fired[routine_id] = slots[-1]
            journaled.add(routine_id)

    async def materialize(self, row: JournalRow, *, recovering: bool) -> None:
        """The runs of a journal row, the fire times and the row's deletion in one transaction; then
        admit them.

        The fire times written are the current ones, which already account for
        the row (and for any edit made since).
        """
        moved: list[tuple[int | None, int | None, str]] = []
        runs: list[RoutineRun] = []
        routines, fire_times, new_run = self._routines, self.fire_times, self._new_run
        fired_at = row.fired_at_ms
        for routine_id, slots, _next, reason in row.decisions:
            routine = routines.get(routine_id)
            if routine is None:
                continue  # deleted since the decision: nothing to run
            next_fire, last = fire_times(routine_id)
            moved.append((next_fire, last, routine_id))
            for slot in slots:
                runs.append(
                    new_run(routine, "scheduled", fired_at, scheduled_at_ms=slot, reason=reason)
                )
        if not await self.repo.materialize(row.seq, moved, runs):
            runs = []  # another replica materialized the row: its runs exist already
        # No checkpoint from the commit to the end: memory always agrees with the store.
        self._admit(runs, start=not recovering)
        journaled, busy = self._journaled, self._busy
        for routine_id, *_ in row.decisions:
            journaled.discard(routine_id)
            if routine_id not in busy:
                # Nothing of it is queued (skipped fires, runs blocked by policy):
                # a fire it missed meanwhile may happen now.
                self.signal.changed("routine", routine_id)


__all__ = ["RoutineScheduling"]
