"""How the services tell the scheduler that something changed, without ever blocking.

A service calls ``signal.changed(kind, id)`` after creating, editing or
deleting a schedule, and when a target's last unsettled run settles (so a fire
deferred while it was busy can happen). The scheduler drains the set of
changed keys and re-reads those entries. Marking is synchronous and cheap, so
thousands of run completions never fill a mailbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import trio

if TYPE_CHECKING:
    from .schedule import MisfirePolicy, Schedule

Key = tuple[str, str]
"""``(kind, id)``: ``("routine", routine_id)`` or ``("v2", automation_id)``."""


@attrs.frozen
class ScheduleEntry:
    kind: str
    target_id: str
    schedule: Schedule
    misfire: MisfirePolicy
    next_fire_at_ms: int

    @property
    def key(self) -> Key:
        return (self.kind, self.target_id)


class ScheduleSignal:
    def __init__(self) -> None:
        self._changed: set[Key] = set()
        self._event = trio.Event()

    def changed(self, kind: str, target_id: str) -> None:
        self._changed.add((kind, target_id))
        self._event.set()

    @property
    def pending(self) -> bool:
        return bool(self._changed)

    def drain(self) -> set[Key]:
        """The keys changed since the last drain (and re-arm the wake-up)."""
        keys, self._changed = self._changed, set()
        self._event = trio.Event()
        return keys

    async def wait(self) -> None:
        """Return once something changed (at once if something already did)."""
        if self._changed:
            return
        await self._event.wait()


__all__ = ["Key", "ScheduleEntry", "ScheduleSignal"]
