"""Capabilities over HTTP: bindings (stored), discovery, resolve."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint

from ..request import engine, json_body, object_body

if TYPE_CHECKING:
    from ...capabilities import CapabilityService

bp = Blueprint("capabilities", __name__)


def service() -> CapabilityService:
    # Imported on first use: start-up mounts the routes only.
    from ...capabilities import CapabilityService

    eng = engine()
    return CapabilityService(eng.kv, eng.tools, eng.clock)


@bp.get("/capabilities/bindings")
async def get_capability_bindings() -> Any:
    return await service().bindings()


@bp.put("/capabilities/bindings")
async def put_capability_bindings() -> Any:
    return await service().set_bindings(await json_body(allow_empty=False))


@bp.get("/capabilities/discovery")
async def capability_discovery() -> Any:
    return service().discovery()


@bp.post("/capabilities/resolve")
async def resolve_capabilities() -> Any:
    return await service().resolve(await object_body())
