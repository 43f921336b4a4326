"""Provider administration: ``GET /provider``, ``GET /provider/auth``, ``PATCH /config``,
``PUT``/``DELETE /auth/{id}`` (logic in svc/providers/admin.py)."""

from __future__ import annotations

from typing import Any

import attrs
from quart import Blueprint

from ...convert import aliases, structure
from ...errors import ValidationFailed
from ..request import engine, object_body

bp = Blueprint("providers", __name__)


@attrs.frozen
class ApiKeyBody:
    api_key: str | None = aliases("apiKey", "token", "key", default=None)


def _admin() -> Any:
    # Imported on first use: start-up mounts the routes but changes no provider.
    from ...providers.admin import ProviderAdmin

    return ProviderAdmin(engine())


@bp.get("/provider")
async def provider_catalog() -> Any:
    return _admin().catalog()


@bp.get("/provider/auth")
async def provider_auth() -> Any:
    return _admin().auth_status()


@bp.patch("/config")
async def patch_config() -> Any:
    return await _admin().patch_config(await object_body())


@bp.put("/auth/<provider_id>")
async def put_auth(provider_id: str) -> Any:
    body = structure(ApiKeyBody, await object_body())
    if not body.api_key or not body.api_key.strip():
        raise ValidationFailed("`apiKey` must not be empty", field="apiKey")
    return await _admin().set_api_key(provider_id, body.api_key.strip())


@bp.delete("/auth/<provider_id>")
async def delete_auth(provider_id: str) -> Any:
    return await _admin().delete_api_key(provider_id)
