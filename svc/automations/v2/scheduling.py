"""An automations v2 service as a scheduler and fire-journal target."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from ..scheduler.journal import JournalRow
from ..scheduler.signal import ScheduleEntry
from .controls import V2Controls

if TYPE_CHECKING:
    from ..scheduler.schedule import MisfirePolicy
    from ..scheduler.timing import FirePlan
    from .records import AutomationV2, AutomationV2Run

# The spec parser, the records, the schedule math and the executor are imported on first
# use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").


class V2Scheduling(V2Controls):
    def schedule_entries(self) -> list[ScheduleEntry]:
        return [e for e in (self.entry(a) for a in self._automations) if e is not None]

    def entry(self, automation_id: str) -> ScheduleEntry | None:
        from .spec import schedule_of

        automation = self._automations.get(automation_id)
        if (
            automation is None
            or automation.status != "active"
            or automation.next_fire_at_ms is None
        ):
            return None
        schedule, misfire = schedule_of(automation.spec)
        if schedule.kind == "manual":
            return None
        return ScheduleEntry("v2", automation_id, schedule, misfire, automation.next_fire_at_ms)

    def busy(self, automation_id: str) -> bool:
        return self._busy.get(automation_id, 0) > 0 or automation_id in self._journaled

    def held(self, automation_ids: list[str]) -> set[str]:
        return set(filter(self.busy, automation_ids))

    def missed_reason(self, misfire: MisfirePolicy, plan: FirePlan) -> str:
        return f"misfire: {plan.due} due"

    def journaled(self, row: JournalRow) -> None:
        """A tick's decisions are committed: the fire times move now, the runs come with
        :meth:`materialize`."""
        for automation_id, slots, next_fire, _reason in row.decisions:
            automation = self._automations.get(automation_id)
            if automation is None:
                continue  # deleted while the decision was being committed
            last = slots[-1] if slots else automation.last_fired_at_ms
            self._automations[automation_id] = attrs.evolve(
                automation, next_fire_at_ms=next_fire, last_fired_at_ms=last
            )
            self._journaled.add(automation_id)

    async def materialize(self, row: JournalRow, *, recovering: bool) -> None:
        """The runs of a journal row, the fire times and the row's deletion in one transaction; then
        start them."""
        moved: list[AutomationV2] = []
        runs: list[AutomationV2Run] = []
        for automation_id, slots, _next, reason in row.decisions:
            automation = self._automations.get(automation_id)
            if automation is None:
                continue  # deleted since the decision: nothing to run
            moved.append(automation)  # its fire times already account for the row
            for slot in slots:
                trigger_reason = f"scheduled for {slot}" + (f" ({reason})" if reason else "")
                run = self.new_run(
                    automation,
                    run_id=None,
                    trigger_type="scheduled",
                    trigger_reason=trigger_reason,
                    context=None,
                    snapshot=None,
                )
                runs.append(attrs.evolve(run, context={"scheduled_at_ms": slot}))
        if not await self.repo.materialize(row.seq, moved, runs):
            runs = []  # another replica materialized the row: its runs exist already
        # No checkpoint from the commit to the end: memory always agrees with the store.
        for run in runs:
            self._live[run.run_id] = run
            self._busy[run.automation_id] += 1
        for automation_id, *_ in row.decisions:
            self._journaled.discard(automation_id)
            if not self.busy(automation_id):
                self.signal.changed("v2", automation_id)
        if recovering:
            self._recovered.extend(runs)  # announced and submitted by start_pending
            return
        for run in runs:
            self._announce_scheduled(run)
            self._submit(run.run_id)


__all__ = ["V2Scheduling"]
