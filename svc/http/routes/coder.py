"""Coder projects: ``/coder/projects/{project_id}/...`` (docs/enterprise.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint

from ..request import engine, object_body

if TYPE_CHECKING:
    from ...coder import CoderService

bp = Blueprint("coder", __name__)


def service() -> CoderService:
    from ...coder import coder_of

    return coder_of(engine())


@bp.get("/coder/projects/<project_id>/bindings")
async def get_bindings(project_id: str) -> Any:
    return await service().get_binding(project_id)


@bp.put("/coder/projects/<project_id>/bindings")
async def put_bindings(project_id: str) -> Any:
    return await service().put_binding(project_id, await object_body())


@bp.get("/coder/projects/<project_id>/repohost-project/inbox")
async def inbox(project_id: str) -> Any:
    return await service().inbox(project_id)


@bp.post("/coder/projects/<project_id>/repohost-project/intake")
async def intake(project_id: str) -> Any:
    return await service().intake(project_id, await object_body())
