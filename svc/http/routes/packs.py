"""Packs over HTTP: list, inspect, install, install from an attachment, uninstall,
export, detect, updates and update."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint

from ..request import engine, object_body

if TYPE_CHECKING:
    from ...packs import PackService

bp = Blueprint("packs", __name__)


def service() -> PackService:
    # Imported on first use: start-up mounts the routes only.
    from ...packs import PackService

    eng = engine()
    return PackService(eng.store, eng.clock, state_dir=eng.state_dir, workspace=eng.workspace)


@bp.get("/packs")
async def list_packs() -> Any:
    packs = [p.to_wire() for p in await service().packs()]
    return {"packs": packs, "count": len(packs)}


@bp.post("/packs/install")
async def install_pack() -> Any:
    return await service().install(await object_body())


@bp.post("/packs/install_from_attachment")
async def install_pack_from_attachment() -> Any:
    return await service().install_from_attachment(await object_body())


@bp.post("/packs/uninstall")
async def uninstall_pack() -> Any:
    return await service().uninstall(await object_body())


@bp.post("/packs/export")
async def export_pack() -> Any:
    return await service().export(await object_body())


@bp.post("/packs/detect")
async def detect_pack() -> Any:
    return await service().detect(await object_body())


@bp.get("/packs/<selector>")
async def inspect_pack(selector: str) -> Any:
    return await service().inspect(selector)


@bp.get("/packs/<selector>/updates")
async def pack_updates(selector: str) -> Any:
    return await service().updates(selector)


@bp.post("/packs/<selector>/update")
async def update_pack(selector: str) -> Any:
    return await service().update(selector, await object_body())
