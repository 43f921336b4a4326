"""How agent teams plug into the engine (see :mod:`svc.component`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..component import Component
from .service import TeamsService
from .tools import SpawnAgentTool

if TYPE_CHECKING:
    from ..engine import Engine


class TeamsComponent(Component):
    name = "teams"

    async def setup(self, engine: Engine) -> None:
        service = TeamsService(engine)
        engine.teams = service
        engine.tools.register(SpawnAgentTool(service))

    def install(self, engine: Engine) -> None:
        # Mission supervisors run under the engine's `teams` dynamic supervisor.
        engine.teams.install()

    async def started(self, engine: Engine) -> None:
        await engine.teams.recover()


__all__ = ["TeamsComponent"]
