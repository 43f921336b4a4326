"""The browser component: ``engine.browser``, the browser tools, the sidecar's supervisor.

``browser_status`` is always registered. When browser automation is enabled, the
engine evaluates readiness once it is up (a real launch, through the sidecar) and
registers the ten other tools if the browser is runnable. Nothing of the sidecar
client, trio-websocket or the actor is imported unless the browser is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from .service import BrowserService
from .tools import RUNNABLE_TOOLS, BrowserStatusTool

if TYPE_CHECKING:
    from ..engine import Engine


class BrowserComponent(Component):
    name = "browser"

    def __init__(self) -> None:
        self.service: BrowserService | None = None

    async def setup(self, engine: Engine) -> None:
        self.service = engine.browser = BrowserService(engine)
        engine.tools.register(BrowserStatusTool(self.service), replace=True)

    def children(self, engine: Engine) -> list[ChildSpec]:
        assert self.service is not None
        return [ChildSpec(id="browser", start=self.service.run, restart=Restart.PERMANENT)]

    async def started(self, engine: Engine) -> None:
        assert self.service is not None
        if not engine.settings.browser.enabled:
            return
        status = await self.service.status()
        if status.runnable:
            for tool in RUNNABLE_TOOLS:
                engine.tools.register(tool(self.service), replace=True)


__all__ = ["BrowserComponent"]
