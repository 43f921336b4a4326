"""How the MCP domain plugs into the engine (see ``svc/component.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..component import Component
from .service import McpService
from .tools import agent_tools

if TYPE_CHECKING:
    from ..engine import Engine


class McpComponent(Component):
    name = "mcp"

    async def setup(self, engine: Engine) -> None:
        service = McpService(
            store=engine.store,
            events=engine.events,
            clock=engine.clock,
            registry=engine.tools,
            actors=engine.actors,
            settings=lambda: engine.settings,
            http=engine.http,
        )
        await service.load()
        service.spawn_task = engine.spawn_background
        service.public_url = lambda: engine.url
        engine.mcp = service
        for tool in agent_tools(service):
            engine.tools.register(tool, replace=True)

    def install(self, engine: Engine) -> None:
        # ConnectorActors live under the connectors supervisor: a crash restarts
        # one from the store (configuration intact) without touching the others.
        engine.mcp.install(engine.entities)

    async def started(self, engine: Engine) -> None:
        engine.spawn_background(engine.mcp.reconnect_enabled)

    async def stopping(self, engine: Engine) -> None:
        await engine.mcp.shutdown()


__all__ = ["McpComponent"]
