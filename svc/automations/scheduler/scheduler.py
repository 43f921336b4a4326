"""The scheduler: one supervised child that fires routines and automations v2 on time.

It keeps a heap of ``(next_fire_at_ms, kind, id)`` and sleeps until the
earliest one, in trio time converted from wall time through the engine clock
(``clock.to_trio_time``), so a MockClock drives it exactly. A *tick* takes
every due entry, skips the ones whose target is busy (a run still queued or
running, or a journaled fire not yet turned into runs: they wait, and are
reconsidered when that settles, when the misfire policy decides how many of the
missed fires to run), plans the rest with
:func:`~svc.automations.scheduler.timing.plan_fires`, and commits the decisions
to the :class:`~svc.automations.scheduler.journal.FireJournal`: one row per
slice and kind, whatever the number of fires. The runs themselves are written by
the journal's materializer after the tick, together with the persisted fire
times; after a crash, the next start materializes what is left before this
heap is loaded, so whatever was missed is due at once and the policy applies.

Services never call into the scheduler: they mark changes on a
:class:`~svc.automations.scheduler.signal.ScheduleSignal`, which wakes it.
"""

from __future__ import annotations

import bisect
import heapq
import json
import logging
import math
import operator
from collections.abc import Callable, Container, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import trio

from ...clock import Clock
from .journal import Decisions, FireJournal, JournalBatch, JournalTarget, encode_decision
from .signal import Key, ScheduleEntry, ScheduleSignal

if TYPE_CHECKING:
    from .schedule import MisfirePolicy
    from .timing import FirePlan

# The schedule math is imported by the first tick: a scheduler with nothing due never
# plans a fire (docs/architecture.md, "Start-up budget").

log = logging.getLogger("svc.automations")

TICK_SLICE = 1000
"""Due entries handled (planned, journaled in one transaction) between two checkpoints of a tick."""

POP_LIMIT = 256
"""Due items popped one by one before a tick takes the rest in one pass over the heap."""


class Target(JournalTarget, Protocol):
    """A service whose records have schedules (routines, automations v2)."""

    def schedule_entries(self) -> list[ScheduleEntry]: ...

    def entry(self, target_id: str) -> ScheduleEntry | None: ...

    def busy(self, target_id: str) -> bool:
        """A run is queued or running, or a journaled fire has not become runs yet."""

    def held(self, target_ids: list[str]) -> Container[str]:
        """The busy ones among ``target_ids`` (what :meth:`busy` says of each, in bulk)."""

    def missed_reason(self, misfire: MisfirePolicy, plan: FirePlan) -> str:
        """The note a run created by a misfire decision carries (journaled with the decision)."""


class Scheduler:
    def __init__(
        self,
        clock: Clock,
        targets: Mapping[str, Target],
        signal: ScheduleSignal,
        journal: FireJournal,
        *,
        grace_ms: Callable[[], int],
    ) -> None:
        self.clock = clock
        self.targets = targets
        self.signal = signal
        self.journal = journal
        self.grace_ms = grace_ms
        self._heap: list[tuple[int, str, str]] = []
        self._sorted = True
        """The heap is a sorted list (as a big tick leaves it): the next big tick needs no sort."""
        self._tracked: dict[str, dict[str, list[Any]]] = {}
        """Per kind and target: ``[next_fire_at_ms | None, schedule, misfire, interval_ms | None,
        the id as
        JSON, next_fire_at_ms as text]`` as last
        read from the target (edits signal) and moved by ticks. A heap item whose time differs is
        stale;
        None: not in the heap (waiting, or nothing more to fire). Mutable, so a tick allocates
        nothing here."""
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
        self._sorted = True
        self._tracked.clear()
        self.waiting.clear()
        for target in self.targets.values():
            for entry in target.schedule_entries():
                self._push(entry)

    async def run(
        self, *, task_status: trio.TaskStatus[Scheduler] = trio.TASK_STATUS_IGNORED
    ) -> None:
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
        self._tracked.setdefault(entry.kind, {})[entry.target_id] = [
            entry.next_fire_at_ms,
            entry.schedule,
            entry.misfire,
            entry.schedule.interval_ms,
            json.dumps(entry.target_id),
            str(entry.next_fire_at_ms),
        ]
        heapq.heappush(self._heap, (entry.next_fire_at_ms, entry.kind, entry.target_id))
        self._sorted = False

    def absorb(self, keys: set[Key]) -> None:
        """Re-read the entries of changed targets (new, edited, deleted, or no longer busy)."""
        for key in keys:
            kind, target_id = key
            entry = self.targets[kind].entry(target_id)
            tracked = self._tracked.setdefault(kind, {})
            if entry is None:
                tracked.pop(target_id, None)
                self.waiting.discard(key)
                continue
            slot = tracked.get(target_id)
            if key in self.waiting or slot is None or slot[0] != entry.next_fire_at_ms:
                self.waiting.discard(key)
                self._push(entry)
            else:  # same time; the policy (or the schedule's details) may have changed
                slot[1:4] = [entry.schedule, entry.misfire, entry.schedule.interval_ms]

    @property
    def next_due_ms(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    # ------------------------------------------------------------------ tick
    async def tick(self, now_ms: int) -> int:
        """Fire everything due at ``now_ms``; returns the number of runs decided.

        Due entries are handled in slices of :data:`TICK_SLICE`; each slice's
        decisions are committed to the journal in one transaction (one row per
        kind), so a tick with thousands due never holds the event loop for long
        (the store works on its own thread between slices). The runs are created
        by the journal's materializer once the tick is over.
        """
        grace = self.grace_ms()
        created = 0
        due = self._take_due(now_ms)
        done = 0
        upcoming: list[tuple[int, str, str]] = []
        try:
            while done < len(due):
                if done:
                    # Edits made while the previous slice was being committed (the
                    # run loop absorbs what came before the tick).
                    self.absorb(self.signal.drain())
                batches, count, done = self._decide(due, done, now_ms, grace, upcoming)
                created += count
                if batches:
                    await self.journal.record(batches, now_ms)
                    # The commit let the other tasks run; a cancelled tick stops here.
                    await trio.lowlevel.checkpoint_if_cancelled()
                else:
                    await trio.lowlevel.checkpoint()
        finally:
            # The next fire times, and whatever a cancelled tick did not reach, go
            # back: many in one pass over the heap (cheaper than a push each), a
            # few one by one (cheaper than a pass).
            back = upcoming + due[done:]
            if len(back) > POP_LIMIT:
                # Sorted rather than heapified: the heap stays mostly sorted (the
                # rest of it is, and so is ``upcoming`` when the intervals agree),
                # which makes this and the next big tick's sort nearly one pass.
                self._heap.extend(back)
                self._heap.sort()
                self._sorted = True
            else:
                for item in back:
                    heapq.heappush(self._heap, item)
                self._sorted = self._sorted and not back
            # Also when the tick is cancelled: what it journaled still becomes runs.
            self.journal.release()
        self.ticks += 1
        self.fired += created
        return created

    def _take_due(self, now_ms: int) -> list[tuple[int, str, str]]:
        """Every due heap item, oldest first, out of the heap."""
        heap = self._heap
        if self._sorted:
            # What is due is a prefix, and the rest stays sorted.
            split = bisect.bisect_right(heap, now_ms, key=_at)
            prefix = heap[:split]
            del heap[:split]
            return prefix
        due: list[tuple[int, str, str]] = []
        while heap and heap[0][0] <= now_ms:
            if len(due) == POP_LIMIT:
                # Many are due: sorting the heap in place beats popping them one by
                # one (a sorted list is a heap, and what remains after the due
                # prefix still is; the heap is kept mostly sorted, see tick, so
                # this is close to one pass).
                heap.sort()
                self._sorted = True
                split = bisect.bisect_right(heap, now_ms, key=_at)
                due.extend(heap[:split])
                del heap[:split]
                break
            due.append(heapq.heappop(heap))
        return due

    def _decide(
        self,
        due: list[tuple[int, str, str]],
        start: int,
        now_ms: int,
        grace: int,
        upcoming: list[tuple[int, str, str]],
    ) -> tuple[list[JournalBatch], int, int]:
        """Plan the next :data:`TICK_SLICE` due items from ``start``.

        Returns the journal batches by kind, the runs they make, and where the
        next slice starts; the next fire times are appended to ``upcoming``. Busy
        targets go to :attr:`waiting`. This is the hot path of a big tick, so it
        does little per item: the busy targets among the slice are found once
        per kind (:meth:`Target.held`); an on-time interval fire is decided (what
        :func:`plan_fires` decides for it) and encoded inline, and kept as the
        due item and its next heap item, from which the row's
        :class:`Decisions` columns are taken in bulk; anything else goes through
        :func:`plan_fires` and :func:`encode_decision`.
        """
        from .timing import plan_fires

        stop = min(len(due), start + TICK_SLICE)
        chunk = due[start:stop]
        kinds = set(map(_kind, chunk))
        waiting = self.waiting
        earliest = now_ms - grace
        # Per kind: the decided due items, their next heap items (the next fire
        # time may be None for a plan), the decisions' JSON, the planned ones.
        columns: dict[
            str,
            tuple[
                list[tuple[int, str, str]],
                list[tuple[Any, str, str]],
                list[str],
                dict[int, tuple[Sequence[int], int | None, str | None]],
            ],
        ] = {}
        current = ""
        target: Any = None
        untracked: dict[str, list[Any]] = {}
        tracked_get: Callable[[str], list[Any] | None] = untracked.get
        held: Container[str] = ()
        helds: dict[str, Container[str]] = {}
        # Bound to the current kind's columns by the first item (``current`` starts empty).
        add_item: Callable[[tuple[int, str, str]], None] = _unbound
        add_next: Callable[[tuple[Any, str, str]], None] = _unbound
        add_text: Callable[[str], None] = _unbound
        items: list[tuple[int, str, str]] = []
        planned: dict[int, tuple[Sequence[int], int | None, str | None]] = {}
        for item in chunk:
            at, kind, target_id = item
            if kind != current:
                current, target = kind, self.targets[kind]
                tracked_get = self._tracked.get(kind, {}).get
                if kind not in columns:
                    columns[kind] = ([], [], [], {})
                    ids = (
                        list(map(_id, chunk))
                        if len(kinds) == 1
                        else [i for _, k, i in chunk if k == kind]
                    )
                    helds[kind] = target.held(ids)
                held = helds[kind]
                items, nexts, texts, planned = columns[kind]
                add_item, add_next, add_text = items.append, nexts.append, texts.append
            slot = tracked_get(target_id)
            if slot is None or slot[0] != at:
                continue  # superseded by a later push, or no longer scheduled
            if target_id in held:
                slot[0] = None
                waiting.add((kind, target_id))
                continue
            interval = slot[3]
            if interval is not None and at >= earliest:
                following = at + interval
                if following > now_ms:  # one slot due, within the grace: on time
                    # The journal makes exactly this the target's next fire time (a
                    # later edit signals, and is absorbed before the next slice).
                    slot[0] = following
                    add_item(item)
                    add_next((following, kind, target_id))
                    # encode_decision, inline (``at`` was converted to text when it was planned)
                    text = str(following)
                    add_text(f"[{slot[4]},[{slot[5]}],{text},null]")
                    slot[5] = text
                    continue
            plan = plan_fires(slot[1], slot[2], at, now_ms, grace_ms=grace)
            decision = (
                plan.fires,
                plan.next_fire_at_ms,
                target.missed_reason(slot[2], plan) if plan.missed else None,
            )
            planned[len(items)] = decision
            slot[0] = plan.next_fire_at_ms
            slot[5] = str(plan.next_fire_at_ms)
            add_item(item)
            add_next((plan.next_fire_at_ms, kind, target_id))
            add_text(encode_decision((target_id, *decision)))
        batches: list[JournalBatch] = []
        created = 0
        for kind, (items, nexts, texts, planned) in columns.items():
            if not items:
                continue
            created += (
                len(items) - len(planned) + sum(len(fires) for fires, _, _ in planned.values())
            )
            if any(following is None for _, following, _ in planned.values()):
                upcoming.extend(item for item in nexts if item[0] is not None)
            else:
                upcoming.extend(nexts)
            decisions = Decisions(
                list(map(_id, items)), list(map(_at, items)), list(map(_at, nexts)), planned
            )
            batches.append((kind, decisions, texts))
        return batches, created, stop


_at = operator.itemgetter(0)
_kind = operator.itemgetter(1)
_id = operator.itemgetter(2)


def _unbound(_: object) -> None:
    raise AssertionError("a column was appended to before its kind was selected")


__all__ = ["TICK_SLICE", "Scheduler", "Target"]
