"""The enterprise domain's place in the engine: ``enterprise_of(engine)``.

Nothing runs at start-up: the service, its records and repositories are built
by the first enterprise request (docs/architecture.md, "Start-up budget").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..component import Component
from ..errors import NotFound

if TYPE_CHECKING:
    from ..engine import Engine
    from .service import EnterpriseService


class EnterpriseComponent(Component):
    name = "enterprise"

    def __init__(self) -> None:
        self._engine: Engine | None = None
        self._service: EnterpriseService | None = None

    async def setup(self, engine: Engine) -> None:
        self._engine = engine

    @property
    def service(self) -> EnterpriseService | None:
        if self._service is None and self._engine is not None:
            from .service import EnterpriseService

            self._service = EnterpriseService(self._engine)
        return self._service


def enterprise_of(engine: Engine) -> EnterpriseService:
    """The engine's enterprise service (the engine has no attribute of its own for it)."""
    for component in engine.components:
        if isinstance(component, EnterpriseComponent) and component.service is not None:
            return component.service
    raise NotFound("this engine runs without the enterprise component")


__all__ = ["EnterpriseComponent", "enterprise_of"]
