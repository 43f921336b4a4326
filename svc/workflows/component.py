"""How the workflows domain plugs into the engine (see :mod:`svc.component`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from ..errors import SvcError
from .errors import WorkflowsUnavailable
from .planner_service import PlannerService
from .service import WorkflowService
from .studio import migrate_studio_workflow

if TYPE_CHECKING:
    from ..engine import Engine

log = logging.getLogger("svc.workflows")


class WorkflowsComponent(Component):
    """Loads definitions at start-up; runs the run executor and the hook dispatcher under ``services``."""

    name = "workflows"

    def __init__(self) -> None:
        self.service: WorkflowService | None = None
        self.planner: PlannerService | None = None

    async def setup(self, engine: Engine) -> None:
        service = WorkflowService(engine)
        await service.recover()
        await service.load()
        self.service = service
        self.planner = PlannerService(engine)
        # A configuration reload may move the workspace or the state dir.
        engine.on_settings_changed(lambda _settings: engine.spawn_background(service.reload))

    async def started(self, engine: Engine) -> None:
        engine.spawn_background(migrate_stored_studio_workflows, engine)

    def children(self, engine: Engine) -> list[ChildSpec]:
        service = self.require()
        return [
            ChildSpec(id="workflow-runner", start=service.runner.run, restart=Restart.PERMANENT),
            ChildSpec(id="workflow-hooks", start=service.run_dispatcher, restart=Restart.PERMANENT),
            ChildSpec(id="workflow-gate-expiry", start=service.run_gate_expiry, restart=Restart.PERMANENT),
        ]

    def require(self) -> WorkflowService:
        if self.service is None:
            raise WorkflowsUnavailable("the workflows component is not set up yet")
        return self.service


async def migrate_stored_studio_workflows(engine: Engine) -> int:
    """Bring saved studio workflows (automations v2 with ``metadata.studio``) to structure version 2."""
    v2 = getattr(engine.automations, "v2", None)
    if v2 is None or not hasattr(v2, "list") or not hasattr(v2, "patch"):
        return 0
    migrated = 0
    for automation in v2.list():
        spec, changed = migrate_studio_workflow(automation.spec)
        if not changed:
            continue
        try:
            await v2.patch(automation.automation_id, {k: spec[k] for k in ("agents", "flow", "metadata")})
        except SvcError:
            log.exception("studio workflow %s could not be migrated", automation.automation_id)
            continue
        log.info("studio workflow migrated to structure version 2", extra={"automation": automation.automation_id})
        migrated += 1
    return migrated


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


__all__ = ["WorkflowsComponent", "migrate_stored_studio_workflows", "planner_of", "workflows_of"]
