"""The coder domain's place in the engine: ``coder_of(engine)``; built by the first request."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..component import Component
from ..errors import NotFound

if TYPE_CHECKING:
    from ..engine import Engine
    from .service import CoderService


class CoderComponent(Component):
    name = "coder"

    def __init__(self) -> None:
        self._engine: Engine | None = None
        self._service: CoderService | None = None

    async def setup(self, engine: Engine) -> None:
        self._engine = engine

    async def started(self, engine: Engine) -> None:
        # A step that was running when the engine stopped still has to move its run
        # (and its project item) on: its follower starts again, in the background so
        # start-up does not wait for the query.
        engine.spawn_background(self._resume)

    async def _resume(self) -> None:
        from .runs import resume_followers

        service = self.service
        if service is not None:
            await resume_followers(service)

    @property
    def service(self) -> CoderService | None:
        if self._service is None and self._engine is not None:
            from .service import CoderService

            self._service = CoderService(self._engine)
        return self._service


def coder_of(engine: Engine) -> CoderService:
    """The engine's coder service (the engine has no attribute of its own for it)."""
    for component in engine.components:
        if isinstance(component, CoderComponent) and component.service is not None:
            return component.service
    raise NotFound("this engine runs without the coder component")


__all__ = ["CoderComponent", "coder_of"]
