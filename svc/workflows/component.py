"""How the workflows domain plugs into the engine (see :mod:`svc.component`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from .errors import WorkflowsUnavailable
from .service import WorkflowService

if TYPE_CHECKING:
    from ..engine import Engine


class WorkflowsComponent(Component):
    """Loads definitions at start-up; runs the run executor and the hook dispatcher under ``services``."""

    name = "workflows"

    def __init__(self) -> None:
        self.service: WorkflowService | None = None

    async def setup(self, engine: Engine) -> None:
        service = WorkflowService(engine)
        await service.recover()
        await service.load()
        self.service = service
        # A configuration reload may move the workspace or the state dir.
        engine.on_settings_changed(lambda _settings: engine.spawn_background(service.reload))

    def children(self, engine: Engine) -> list[ChildSpec]:
        service = self.require()
        return [
            ChildSpec(id="workflow-runner", start=service.runner.run, restart=Restart.PERMANENT),
            ChildSpec(id="workflow-hooks", start=service.run_dispatcher, restart=Restart.PERMANENT),
        ]

    def require(self) -> WorkflowService:
        if self.service is None:
            raise WorkflowsUnavailable("the workflows component is not set up yet")
        return self.service


def workflows_of(engine: Engine) -> WorkflowService:
    """The engine's workflow service (the engine has no attribute of its own for it)."""
    for component in engine.components:
        if isinstance(component, WorkflowsComponent):
            return component.require()
    raise WorkflowsUnavailable("this engine runs without the workflows component")


__all__ = ["WorkflowsComponent", "workflows_of"]
