"""The incident monitor's place in the engine: ``engine.incidents`` and its monitor actor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from .service import IncidentService

if TYPE_CHECKING:
    from ..audit.decisions import DecisionSink
    from ..engine import Engine


class IncidentsComponent(Component):
    name = "incidents"

    def __init__(self) -> None:
        self.service: IncidentService | None = None

    async def setup(self, engine: Engine) -> None:
        self.service = IncidentService(engine)
        await self.service.load()
        engine.incidents = self.service
        _wire_decision_sinks(engine, self.service.decisions.record)

    def children(self, engine: Engine) -> list[ChildSpec]:
        assert self.service is not None
        from .monitor import IncidentMonitor

        monitor = IncidentMonitor(self.service)
        self.service.monitor = monitor
        # Transient: it returns only when the event log shuts down with the engine; a crash
        # restarts it, and it resumes from its committed cursor and persisted offsets.
        return [ChildSpec(id="incident-monitor", start=monitor.run, restart=Restart.TRANSIENT)]

    async def stopping(self, engine: Engine) -> None:
        if self.service is not None:
            await self.service.close()


def _wire_decision_sinks(engine: Engine, sink: DecisionSink) -> None:
    """Every domain that decides allow/deny/approval reports to the monitor's store.

    This component sets up last (svc/component.py), so the other domains exist here."""
    engine.dispatcher.decision_sink = sink
    if engine.teams is not None:
        engine.teams.spawner.decision_sink = sink
    if engine.automations is not None:
        engine.automations.governance.decision_sink = sink
    if engine.mcp is not None:
        engine.mcp.decision_sink = sink


__all__ = ["IncidentsComponent"]
