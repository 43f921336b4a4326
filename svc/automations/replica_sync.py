"""Replicas on one store: schedules edited on any replica reach every replica's memory promptly.

Each replica keeps routines and automations v2 in memory (the scheduler reads
its heap from there), and an edit updates only the memory of the replica that
served it. Every edit also publishes ``routine.*`` / ``automation.v2.*``
events, and on a shared store the event log delivers every replica's events to
every replica (``LISTEN/NOTIFY``, read back from the log). :class:`ScheduleSync`
follows those events and re-reads the definitions they name from the store,
then tells the scheduler (``signal.changed``), so the leader's heap changes
within a fan-out delay of an edit on a standby, not at the next leadership
change.

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
        wanted = EventFilter(types=frozenset(_KINDS))
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
        stored = await routines.repo.stored_routine(routine_id)
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
        stored = await v2.repo.stored_automation(automation_id)
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
