"""A routine service's memory and plumbing: the routines, their fire times, the unsettled runs.

Definitions and their fire times live in memory (loaded at start-up, written
through to the store); so do the runs that have not settled, so every change of
a run passes through :meth:`RoutineState.store`. The service is built in
layers, one module each: this state, definitions (:mod:`.definitions`),
execution (:mod:`.running`), run creation and queues (:mod:`.runs`), operator
decisions (:mod:`.decisions`) and scheduling (:mod:`.scheduling`);
:class:`~.service.RoutineService` is the last layer.
"""

from __future__ import annotations

import logging
from collections import Counter, deque
from typing import TYPE_CHECKING, Any

from supervisors import BudgetScope

from ..errors import (
    AutomationNotFound,
    RoutineNotFound,
)
from ..pool import RunPool
from ..scheduler.signal import ScheduleSignal
from .repository import RoutineRepository

if TYPE_CHECKING:
    from ...engine import Engine
    from .claims import RoutineClaims
    from .execution import EntrypointHandler
    from .records import Routine, RoutineRun


# The body parsers, the records, the schedule math and the run execution are imported on
# first use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").

log = logging.getLogger("svc.automations")

TOPIC = "automations"
DETAIL_LIMIT = 500
MAX_RUN_COUNT = 20


class RoutineState:
    def __init__(
        self, engine: Engine, repo: RoutineRepository, pool: RunPool, signal: ScheduleSignal
    ) -> None:
        self.engine = engine
        self.repo = repo
        self.pool = pool
        self.signal = signal
        self._routines: dict[str, Routine] = {}
        self._next_fire: dict[str, int | None] = {}
        self._last_fired: dict[str, int | None] = {}
        """The fire times per routine (two maps, so a tick's journal row applies without a tuple
        each)."""
        self._live: dict[str, RoutineRun] = {}
        self._journaled: set[str] = set()
        """Routines with a journaled fire not yet materialized (busy for the scheduler)."""
        self._recovered: list[RoutineRun] = []
        """Runs materialized from the journal at start-up, announced and started by
        :meth:`start_pending`."""
        self._busy: Counter[str] = Counter()
        self._lanes: dict[str, deque[str]] = {}
        """Per routine, its queued runs in order: a routine's runs execute one after another."""
        self._lane_active: set[str] = set()
        self._budgets: dict[str, BudgetScope] = {}
        self._entrypoints: dict[str, EntrypointHandler] = {}
        self.claims: RoutineClaims | None = None
        """Replicas on one store: queued runs are claimed (:mod:`.claims`), not laned here."""

    def now_ms(self) -> int:
        return self.engine.clock.now_ms()

    def publish(self, type: str, run: RoutineRun, /, **properties: Any) -> None:
        self.engine.events.publish(
            type,
            {
                "runID": run.run_id,
                "routineID": run.routine_id,
                "automationID": run.routine_id,
                **properties,
            },
            topic=TOPIC,
        )

    def register_entrypoint(self, name: str, handler: EntrypointHandler) -> None:
        """Run routines whose entrypoint is ``name`` (or starts with ``name`` ending in ``.``/``*``)
        with ``handler``."""
        self._entrypoints[name] = handler

    def handler_for(self, entrypoint: str) -> EntrypointHandler:
        if entrypoint in self._entrypoints:
            return self._entrypoints[entrypoint]
        best = ""
        for name in self._entrypoints:
            prefix = name[:-1] if name.endswith("*") else name
            if (
                name.endswith(("*", "."))
                and entrypoint.startswith(prefix)
                and len(prefix) > len(best)
            ):
                best = name
        if best:
            return self._entrypoints[best]
        from .execution import session_entrypoint

        return session_entrypoint

    async def store(self, run: RoutineRun) -> None:
        """Persist ``run``; keep the unsettled set and the scheduler's busy marks in step."""
        before = self._live.get(run.run_id)
        was_busy = before is not None and before.busy
        is_busy = run.busy
        if run.terminal:
            self._live.pop(run.run_id, None)
        else:
            self._live[run.run_id] = run
        if was_busy != is_busy:
            self._busy[run.routine_id] += 1 if is_busy else -1
            if self._busy[run.routine_id] <= 0:
                del self._busy[run.routine_id]
                self.signal.changed("routine", run.routine_id)
        await self.repo.save_run(run)

    def require(self, routine_id: str, *, dialect: str = "routine") -> Routine:
        routine = self._routines.get(routine_id)
        if routine is None:
            if dialect == "automation":
                raise AutomationNotFound(
                    f"automation `{routine_id}` not found", automationID=routine_id
                )
            raise RoutineNotFound(f"routine `{routine_id}` not found", routineID=routine_id)
        return routine

    def get(self, routine_id: str) -> Routine | None:
        return self._routines.get(routine_id)

    def fire_times(self, routine_id: str) -> tuple[int | None, int | None]:
        return self._next_fire.get(routine_id), self._last_fired.get(routine_id)

    def _set_fire(self, routine_id: str, next_fire: int | None, last_fired: int | None) -> None:
        self._next_fire[routine_id] = next_fire
        self._last_fired[routine_id] = last_fired


__all__ = ["DETAIL_LIMIT", "MAX_RUN_COUNT", "TOPIC", "RoutineState"]
