"""The goals component: ``engine.goals``, its tools, and one actor per active goal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..component import Component
from .service import GoalService
from .tools import goal_tools

if TYPE_CHECKING:
    from ..engine import Engine


class GoalsComponent(Component):
    name = "goals"

    async def setup(self, engine: Engine) -> None:
        engine.goals = GoalService(engine, event_retention=engine.settings.goal_event_retention)
        for tool in goal_tools(engine.goals):
            engine.tools.register(tool, replace=True)

    def install(self, engine: Engine) -> None:
        engine.goals.install(engine.entities)

    async def started(self, engine: Engine) -> None:
        # Legacy envelopes first (they name automations, which are loaded by now).
        await engine.goals.import_legacy()
        # Every goal that has not ended gets its actor back: deadlines re-arm, runs that
        # were reserved but not created start, and settled runs are recorded.
        await engine.goals.activate_open_goals()

    async def stopping(self, engine: Engine) -> None:
        engine.goals.close()


__all__ = ["GoalsComponent"]
