"""The incident monitor's place in the engine: ``engine.incidents`` and its monitor actor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from .service import IncidentService

if TYPE_CHECKING:
    from ..engine import Engine


class IncidentsComponent(Component):
    name = "incidents"

    def __init__(self) -> None:
        self.service: IncidentService | None = None

    async def setup(self, engine: Engine) -> None:
        self.service = IncidentService(engine)
        await self.service.load()
        engine.incidents = self.service

    def children(self, engine: Engine) -> list[ChildSpec]:
        assert self.service is not None
        from .monitor import IncidentMonitor

        monitor = IncidentMonitor(self.service)
        self.service.monitor = monitor
        # Transient: it returns only when the event log shuts down with the engine; a crash
        # restarts it, and it resumes from its committed cursor and persisted offsets.
        return [ChildSpec(id="incident-monitor", start=monitor.run, restart=Restart.TRANSIENT)]


__all__ = ["IncidentsComponent"]
