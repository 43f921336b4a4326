"""Optimization campaigns over HTTP: list, create, get, actions, experiments, winner."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint

from ..request import engine, object_body

if TYPE_CHECKING:
    from ...optimizations import OptimizationService

bp = Blueprint("optimizations", __name__)


def service() -> OptimizationService:
    # Imported on first use: start-up mounts the routes only.
    from ...optimizations import OptimizationService

    eng = engine()
    return OptimizationService(eng.store, eng.events, eng.clock)


@bp.get("/optimizations")
async def list_optimizations() -> Any:
    items = await service().campaigns()
    return {"optimizations": items, "items": items, "count": len(items)}


@bp.post("/optimizations")
async def create_optimization() -> Any:
    record = await service().create(await object_body())
    return {"ok": True, "optimization": record, **record}, 201


@bp.get("/optimizations/<optimization_id>")
async def get_optimization(optimization_id: str) -> Any:
    record = await service().get(optimization_id)
    return {"optimization": record, **record}


@bp.post("/optimizations/<optimization_id>/actions")
async def optimization_action(optimization_id: str) -> Any:
    return await service().action(optimization_id, await object_body())


@bp.get("/optimizations/<optimization_id>/experiments")
async def list_optimization_experiments(optimization_id: str) -> Any:
    items = await service().experiments(optimization_id)
    return {"optimization_id": optimization_id, "experiments": items, "count": len(items)}


@bp.get("/optimizations/<optimization_id>/experiments/<experiment_id>")
async def get_optimization_experiment(optimization_id: str, experiment_id: str) -> Any:
    record = await service().experiment(optimization_id, experiment_id)
    return {"experiment": record, **record}


@bp.post("/optimizations/<optimization_id>/experiments/<experiment_id>")
async def apply_optimization_winner(optimization_id: str, experiment_id: str) -> Any:
    return await service().apply_winner(optimization_id, experiment_id)
