"""How a domain package plugs into the engine's life.

A component is built once per engine. The engine calls, in order:

1. ``await setup(engine)`` before the supervision tree starts: build the
   domain's services, load state, set ``engine.<attribute>``, register tools;
2. ``children(engine)``: long-running children (a scheduler, a watcher) that
   run under the engine's ``services`` supervisor (one-for-one);
3. ``install(engine)`` once the entity supervisors exist: register lazy actor
   factories (``engine.actors.register_factory(..., spawner=...)``);
4. ``await started(engine)`` when the engine is ready (for example reconnect
   connectors in the background via ``engine.spawn_background``);
5. ``await stopping(engine)`` at the beginning of shutdown.

Every hook is optional.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec

if TYPE_CHECKING:
    from .engine import Engine


class Component:
    name: str = "component"

    async def setup(self, engine: Engine) -> None:
        return None

    def children(self, engine: Engine) -> list[ChildSpec]:
        return []

    def install(self, engine: Engine) -> None:
        return None

    async def started(self, engine: Engine) -> None:
        return None

    async def stopping(self, engine: Engine) -> None:
        return None


def default_components() -> list[Component]:
    """The engine's domain components, in dependency order."""
    # Workflows stay after automations: applying a plan creates an automation v2.
    # Goals stay after automations: a goal's workflow runs are automation v2 runs.
    # MCP comes first: later domains' tool policies name the tools of connected servers.
    # Identity and memory depend only on the core services (sessions).
    from .automations import AutomationsComponent
    from .browser import BrowserComponent
    from .coder import CoderComponent
    from .enterprise import EnterpriseComponent
    from .goals import GoalsComponent
    from .identity import IdentityComponent
    from .incidents import IncidentsComponent
    from .mcp import McpComponent
    from .memory import MemoryComponent
    from .teams import TeamsComponent
    from .workflows import WorkflowsComponent

    return [
        McpComponent(),
        IdentityComponent(),
        MemoryComponent(),
        TeamsComponent(),
        AutomationsComponent(),
        WorkflowsComponent(),
        GoalsComponent(),
        IncidentsComponent(),
        BrowserComponent(),
        EnterpriseComponent(),
        CoderComponent(),
    ]
