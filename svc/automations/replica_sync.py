"""Replicas on one store: schedules edited on any replica reach every replica's memory promptly.

Each replica keeps routines and automations v2 in memory (the scheduler reads
its heap from there), and an edit updates only the memory of the replica that
served it. Every edit also publishes ``routine.*`` / ``automation.v2.*``
events, and on a shared store the event log delivers every replica's events to
every replica (``LISTEN/NOTIFY``, read back from the log). :class:`ScheduleSync`
follows those events and re-reads the definitions they name from the store,
then tells the scheduler (``signal.changed``), so the leader's heap changes
within a fan-out delay of an edit on a standby, not at the next leadership
change. It also follows the end of automation v2 runs: a run claimed and run
by another replica (:mod:`.v2.claims`) stops counting as busy here.

The fire times need care: the scheduler leader advances a definition's fire
times in memory when it fires, and writes them to the store only when the
fire's runs are materialized. A copy read from the store (or written by a
standby, from its stale memory) may be older than the leader's. So when the
schedule and the status did not change, the leader keeps whichever fire times
are newer (by ``last_fired``); a changed schedule or status brings fire times
computed for it by the replica that made the edit.

Alone on its store (SQLite) an engine has nothing to follow: this runs only on
a shared cluster.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import attrs
import trio

from ..errors import PersistenceFailed
from ..events import EventFilter, EventStream, StreamEnded

if TYPE_CHECKING:
    from ..engine import Engine
    from ..events import Event
    from .service import AutomationService

log = logging.getLogger("svc.automations")

_KINDS = {
    "routine.created": "routine",
    "routine.updated": "routine",
    "routine.deleted": "routine",
    "automation.v2.created": "v2",
    "automation.v2.updated": "v2",
    "automation.v2.deleted": "v2",
}
"""The definition events, and the kind of schedule each names."""

_SETTLED = frozenset({"run.completed", "run.failed", "run.cancelled"})
"""The end of an automation v2 run (topic ``automations/v2``)."""


def _wanted(event: Event) -> bool:
    return event.type in _KINDS or (event.type in _SETTLED and event.topic == "automations/v2")


class ScheduleSync:
    def __init__(self, engine: Engine, service: AutomationService, *, after_seq: int) -> None:
        """``after_seq``: the seq delivered here when the definitions were loaded."""
        self.engine = engine
        self.service = service
        self.after_seq = after_seq
        self.synced = 0
        """Definitions re-read so far (for tests and tools)."""
        self._progress = trio.Event()

    async def run(self, *, task_status: trio.TaskStatus[None]) -> None:
        """Follow definition events until cancelled (a supervised child)."""
        wanted = EventFilter(predicate=_wanted)
        # Only the shared log (PostgreSQL) tells this replica's events apart;
        # ScheduleSync runs on nothing else.
        mine = getattr(self.engine.events, "published_here", lambda event: False)
        # From the seq delivered here when the definitions were loaded (then from
        # where this child left off): an edit committed later is re-read, an
        # older one is already in memory.
        with EventStream(self.engine.events, wanted, after_seq=self.after_seq) as stream:
            task_status.started()
            while True:
                try:
                    batch = await stream.receive()
                except StreamEnded:
                    return  # the engine is stopping
                keys: dict[tuple[str, str], None] = {}
                for event in batch:
                    if mine(event):
                        continue  # this replica's own edit or run: its memory has it
                    if event.type in _SETTLED:
                        # An automation v2 run settled (on whichever replica claimed
                        # it): one tracked here is not busy any more.
                        run_id = event.properties.get("runID")
                        if isinstance(run_id, str):
                            reason = event.properties.get("reason")
                            self.service.v2.forget_settled(
                                run_id,
                                cancelled=(
                                    str(reason or "cancelled")
                                    if event.type == "run.cancelled"
                                    else None
                                ),
                            )
                        continue
                    target = event.properties.get("routineID") or event.properties.get(
                        "automationID"
                    )
                    if isinstance(target, str):
                        keys[(_KINDS[event.type], target)] = None
                for kind, target_id in keys:
                    try:
                        await self.sync(kind, target_id)
                    except PersistenceFailed:
                        # The store is down: the next edit (or leadership change)
                        # reads it again.
                        log.warning("could not re-read %s %s", kind, target_id, exc_info=True)
                self.after_seq = stream.cursor

    async def sync(self, kind: str, target_id: str) -> None:
        """Re-read one definition from the store into memory, then wake the scheduler."""
        if kind == "routine":
            await self._sync_routine(target_id)
        else:
            await self._sync_v2(target_id)
        self.synced += 1
        self.service.signal.changed(kind, target_id)
        progress, self._progress = self._progress, trio.Event()
        progress.set()

    async def wait_synced(self, count: int) -> None:
        """Return once ``count`` definitions have been re-read (for tests and tools)."""
        while self.synced < count:
            await self._progress.wait()

    async def _sync_routine(self, routine_id: str) -> None:
        routines = self.service.routines
        while True:
            before = routines._routines.get(routine_id)
            stored = await routines.repo.stored_routine(routine_id)
            if routines._routines.get(routine_id) is before:
                break
            # Edited here while the store was read: read it again (that edit is
            # in the store now), rather than put back an older copy.
        if stored is None:
            routines._routines.pop(routine_id, None)
            routines._next_fire.pop(routine_id, None)
            routines._last_fired.pop(routine_id, None)
            return
        routine, next_fire, last_fired = stored
        current = routines._routines.get(routine_id)
        mine_next, mine_last = routines.fire_times(routine_id)
        if (
            current is not None
            and current.status == routine.status
            and current.schedule == routine.schedule
            and _newer(mine_last, last_fired)
        ):
            # This replica fired it since the stored copy was written.
            next_fire, last_fired = mine_next, mine_last
        routines._routines[routine_id] = routine
        routines._set_fire(routine_id, next_fire, last_fired)

    async def _sync_v2(self, automation_id: str) -> None:
        v2 = self.service.v2
        while True:
            before = v2._automations.get(automation_id)
            stored = await v2.repo.stored_automation(automation_id)
            if v2._automations.get(automation_id) is before:
                break  # else edited here meanwhile: read again (see _sync_routine)
        if stored is None:
            v2._automations.pop(automation_id, None)
            return
        current = v2._automations.get(automation_id)
        if (
            current is not None
            and current.status == stored.status
            and current.spec.get("schedule") == stored.spec.get("schedule")
            and _newer(current.last_fired_at_ms, stored.last_fired_at_ms)
        ):
            stored = attrs.evolve(
                stored,
                next_fire_at_ms=current.next_fire_at_ms,
                last_fired_at_ms=current.last_fired_at_ms,
            )
        v2._automations[automation_id] = stored


def _newer(mine: int | None, stored: int | None) -> bool:
    return mine is not None and (stored is None or mine > stored)


__all__ = ["ScheduleSync"]
