"""The scheduler: one supervised child that fires routines and automations v2 on time.

It keeps a heap of ``(next_fire_at_ms, kind, id)`` and sleeps until the
earliest one, in trio time converted from wall time through the engine clock
(``clock.to_trio_time``), so a MockClock drives it exactly. A *tick* takes
every due entry, skips the ones whose target still has a run queued or running
(they wait, and are reconsidered when that run settles, when the misfire policy
decides how many of the missed fires to run), plans the rest with
:func:`~svc.automations.scheduler.timing.plan_fires`, and hands each target
service its decisions in one call, which records the new fire times and the
runs created in one transaction. ``next_fire_at_ms`` is therefore always
persisted with the fires it accounts for: after a restart, whatever was missed
is due at once and the policy applies.

Services never call into the scheduler: they mark changes on a
:class:`~svc.automations.scheduler.signal.ScheduleSignal`, which wakes it.
"""

from __future__ import annotations

import heapq
import logging
import math
from collections.abc import Callable, Mapping
from typing import Protocol

import trio

from ...clock import Clock
from .signal import Key, ScheduleEntry, ScheduleSignal
from .timing import FirePlan, plan_fires

log = logging.getLogger("svc.automations")

TICK_SLICE = 500
"""Due entries handled (planned, fired, committed) between two checkpoints of a tick."""


class Target(Protocol):
    """A service whose records have schedules (routines, automations v2)."""

    def schedule_entries(self) -> list[ScheduleEntry]: ...

    def entry(self, target_id: str) -> ScheduleEntry | None: ...

    def busy(self, target_id: str) -> bool: ...

    async def fire(self, decisions: list[tuple[ScheduleEntry, FirePlan]], now_ms: int) -> None: ...

    def release(self) -> None:
        """The tick is over: start whatever runs :meth:`fire` held back during it."""


class Scheduler:
    def __init__(self, clock: Clock, targets: Mapping[str, Target], signal: ScheduleSignal,
                 *, grace_ms: Callable[[], int]) -> None:
        self.clock = clock
        self.targets = targets
        self.signal = signal
        self.grace_ms = grace_ms
        self._heap: list[tuple[int, str, str]] = []
        self._scheduled: dict[Key, int] = {}
        self.waiting: set[Key] = set()
        """Due targets held back because a previous run is still queued or running."""
        self.ticks = 0
        self.fired = 0
        self.evaluated_ms = 0
        """The wall time of the scheduler's last look at its heap."""
        self._sleeping = False
        self._state = trio.Event()

    # ------------------------------------------------------------------ life
    def load(self) -> None:
        self.signal.drain()
        self._heap.clear()
        self._scheduled.clear()
        self.waiting.clear()
        for target in self.targets.values():
            for entry in target.schedule_entries():
                self._push(entry)

    async def run(self, *, task_status: trio.TaskStatus[Scheduler] = trio.TASK_STATUS_IGNORED) -> None:
        self.load()
        task_status.started(self)
        try:
            while True:
                self.absorb(self.signal.drain())
                now = self.clock.now_ms()
                if self._heap and self._heap[0][0] <= now:
                    await self.tick(now)
                    continue
                deadline = self.clock.to_trio_time(self._heap[0][0]) if self._heap else math.inf
                self._set_state(sleeping=True, now=now)
                with trio.move_on_at(deadline):
                    await self.signal.wait()
                self._set_state(sleeping=False, now=now)
        finally:
            self._set_state(sleeping=False, now=self.evaluated_ms)

    def _set_state(self, *, sleeping: bool, now: int) -> None:
        self._sleeping = sleeping
        self.evaluated_ms = now
        changed, self._state = self._state, trio.Event()
        changed.set()

    async def caught_up(self, wall_ms: int) -> None:
        """Return once everything due at ``wall_ms`` has been fired and the scheduler sleeps.

        For tests and tools that drive the clock: it answers "has the scheduler
        seen this instant yet?" without sleeping or polling.
        """
        while not self._idle_at(wall_ms):
            await self._state.wait()

    def _idle_at(self, wall_ms: int) -> bool:
        if not self._sleeping or self.signal.pending:
            return False
        upcoming = self.next_due_ms
        return self.evaluated_ms >= wall_ms or upcoming is None or upcoming > wall_ms

    # ------------------------------------------------------------------ bookkeeping
    def _push(self, entry: ScheduleEntry) -> None:
        self._scheduled[entry.key] = entry.next_fire_at_ms
        heapq.heappush(self._heap, (entry.next_fire_at_ms, entry.kind, entry.target_id))

    def absorb(self, keys: set[Key]) -> None:
        """Re-read the entries of changed targets (new, edited, deleted, or no longer busy)."""
        for key in keys:
            kind, target_id = key
            entry = self.targets[kind].entry(target_id)
            if entry is None:
                self._scheduled.pop(key, None)
                self.waiting.discard(key)
                continue
            if key in self.waiting or self._scheduled.get(key) != entry.next_fire_at_ms:
                self.waiting.discard(key)
                self._push(entry)

    @property
    def next_due_ms(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    # ------------------------------------------------------------------ tick
    async def tick(self, now_ms: int) -> int:
        """Fire everything due at ``now_ms``; returns the number of runs created.

        Due entries are handled in slices of :data:`TICK_SLICE`, each committed in
        its own transaction, so a tick with thousands due never holds the event
        loop for long (the store works on its own thread between slices).
        """
        grace = self.grace_ms()
        created = 0
        try:
            while self._heap and self._heap[0][0] <= now_ms:
                for kind, entries in self._pop_due(now_ms, TICK_SLICE).items():
                    decisions = [(e, plan_fires(e.schedule, e.misfire, e.next_fire_at_ms, now_ms, grace_ms=grace))
                                 for e in entries]
                    await self.targets[kind].fire(decisions, now_ms)
                    for entry, plan in decisions:
                        created += len(plan.fires)
                        if plan.next_fire_at_ms is not None:
                            # The target stored exactly this next fire time (a later
                            # edit signals, and is absorbed on the next loop).
                            self._scheduled[entry.key] = plan.next_fire_at_ms
                            heapq.heappush(self._heap, (plan.next_fire_at_ms, entry.kind, entry.target_id))
                await trio.lowlevel.checkpoint()
        finally:
            # Also when the tick is cancelled: the runs it committed still start.
            for target in self.targets.values():
                target.release()
        self.ticks += 1
        self.fired += created
        return created

    def _pop_due(self, now_ms: int, limit: int) -> dict[str, list[ScheduleEntry]]:
        """Up to ``limit`` due entries by kind; busy targets go to :attr:`waiting`."""
        due: dict[str, list[ScheduleEntry]] = {}
        heap = self._heap
        taken = 0
        while heap and heap[0][0] <= now_ms and taken < limit:
            at, kind, target_id = heapq.heappop(heap)
            key = (kind, target_id)
            if self._scheduled.get(key) != at:
                continue  # superseded by a later push
            target = self.targets[kind]
            entry = target.entry(target_id)
            if entry is None:
                del self._scheduled[key]
                continue
            if entry.next_fire_at_ms != at:
                self._push(entry)
                continue
            del self._scheduled[key]
            taken += 1
            if target.busy(target_id):
                self.waiting.add(key)
                continue
            due.setdefault(kind, []).append(entry)
        return due


__all__ = ["TICK_SLICE", "Scheduler", "Target"]
