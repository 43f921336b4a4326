"""Identity settings: ``GET`` and ``PATCH /config/identity``."""

from __future__ import annotations

from typing import Any

from quart import Blueprint

from ...errors import NotFound
from ...identity import IdentityService
from ..request import engine, json_body

bp = Blueprint("identity", __name__)


def identity() -> IdentityService:
    service = engine().identity
    if service is None:
        raise NotFound("identity settings are not enabled in this engine")
    return service


@bp.get("/config/identity")
async def get_identity() -> Any:
    return identity().body()


@bp.patch("/config/identity")
async def patch_identity() -> Any:
    return await identity().patch(await json_body(allow_empty=False))
