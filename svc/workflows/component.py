"""How the workflows domain plugs into the engine (see :mod:`svc.component`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from .errors import WorkflowsUnavailable
from .service import WorkflowService
from .studio_migration import migration_available, run_studio_migration

if TYPE_CHECKING:
    from ..engine import Engine
    from .planner_service import PlannerService


class WorkflowsComponent(Component):
    """Loads definitions at start-up; runs the run executor, the hook dispatcher, the gate expiry
    watcher and
    the studio workflow migration under ``services``."""

    name = "workflows"

    def __init__(self) -> None:
        self.service: WorkflowService | None = None
        self._planner: PlannerService | None = None
        self._engine: Engine | None = None

    async def setup(self, engine: Engine) -> None:
        service = WorkflowService(engine)
        await service.recover()
        await service.load()
        self.service = service
        self._engine = engine
        # A configuration reload may move the workspace or the state dir.
        engine.on_settings_changed(lambda _settings: engine.spawn_background(service.reload))

    def children(self, engine: Engine) -> list[ChildSpec]:
        service = self.require()
        children = [
            ChildSpec(id="workflow-runner", start=service.runner.run, restart=Restart.PERMANENT),
            ChildSpec(
                id="workflow-hooks", start=service.hook_dispatcher.run, restart=Restart.PERMANENT
            ),
            ChildSpec(
                id="workflow-gate-expiry", start=service.gates.run_expiry, restart=Restart.PERMANENT
            ),
        ]
        if migration_available(engine):
            children.append(
                ChildSpec(
                    id="workflow-studio-migration",
                    start=run_studio_migration,
                    args=(engine,),
                    restart=Restart.PERMANENT,
                )
            )
        return children

    @property
    def planner(self) -> PlannerService | None:
        """The workflow planner, built by its first use (None before set-up)."""
        # Built on first use: start-up never plans, and the planner's module brings
        # its store, drafts and request shapes (docs/architecture.md, "Start-up budget").
        if self._planner is None and self._engine is not None:
            from .planner_service import PlannerService

            self._planner = PlannerService(self._engine)
        return self._planner

    def require(self) -> WorkflowService:
        if self.service is None:
            raise WorkflowsUnavailable("the workflows component is not set up yet")
        return self.service


def planner_of(engine: Engine) -> PlannerService:
    """The engine's workflow planner."""
    for component in engine.components:
        if isinstance(component, WorkflowsComponent) and component.planner is not None:
            return component.planner
    raise WorkflowsUnavailable("this engine runs without the workflow planner")


def workflows_of(engine: Engine) -> WorkflowService:
    """The engine's workflow service (the engine has no attribute of its own for it)."""
    for component in engine.components:
        if isinstance(component, WorkflowsComponent):
            return component.require()
    raise WorkflowsUnavailable("this engine runs without the workflows component")


__all__ = ["WorkflowsComponent", "planner_of", "workflows_of"]
