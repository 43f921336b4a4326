"""Memory's place in the engine: the service, the tools, and the exchange recorder."""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from ..settings import Settings
from .exchanges import ExchangeRecorder
from .service import MemoryService
from .store import MemoryStore
from .tools import register_memory_tools

if TYPE_CHECKING:
    from ..engine import Engine


class MemoryComponent(Component):
    name = "memory"

    def __init__(self) -> None:
        self.recorder: ExchangeRecorder | None = None

    async def setup(self, engine: Engine) -> None:
        service = MemoryService(
            MemoryStore(engine.store),
            events=engine.events,
            clock=engine.clock,
            sessions=engine.sessions,
            workspace=lambda: engine.workspace,
            roots=lambda: engine.settings.workspace_roots,
        )
        settings = engine.settings
        self.recorder = ExchangeRecorder(
            service,
            engine.events,
            engine.sessions,
            side_chars=settings.memory_exchange_chars,
            enabled=settings.memory_exchanges,
        )
        service.exchanges = self.recorder
        engine.memory = service
        register_memory_tools(engine.tools, service)
        engine.on_settings_changed(self._configure)

    def _configure(self, settings: Settings) -> None:
        if self.recorder is not None:
            self.recorder.side_chars = settings.memory_exchange_chars
            self.recorder.enabled = settings.memory_exchanges

    def children(self, engine: Engine) -> list[ChildSpec]:
        assert self.recorder is not None
        # Transient: it returns only when the event log shuts down with the
        # engine; a crash restarts it from its committed cursor.
        return [
            ChildSpec(id="memory.exchanges", start=self.recorder.run, restart=Restart.TRANSIENT)
        ]


__all__ = ["MemoryComponent"]
