"""Identity's place in the engine: ``engine.identity``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..component import Component
from .service import IdentityService

if TYPE_CHECKING:
    from ..engine import Engine


class IdentityComponent(Component):
    name = "identity"

    async def setup(self, engine: Engine) -> None:
        engine.identity = IdentityService(engine)


__all__ = ["IdentityComponent"]
