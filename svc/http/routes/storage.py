"""``GET /global/storage/files`` (files under the state directory) and
``POST /global/storage/repair`` (the store's self-check, svc/files/repair.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

import trio
from quart import Blueprint

from ...errors import ValidationFailed
from ..request import engine, object_body, query_int, query_str

bp = Blueprint("storage", __name__)


@bp.get("/global/storage/files")
async def storage_files() -> Any:
    # Imported on first use: start-up mounts the route but lists nothing.
    from ...files import DEFAULT_LIMIT, MAX_LIMIT, list_storage_files

    limit = (
        query_int("limit", default=DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT, clamp=True)
        or DEFAULT_LIMIT
    )
    listing = partial(list_storage_files, engine().state_dir, query_str("path"), limit=limit)
    # A large tree takes a while to walk: keep the event loop free meanwhile.
    return await trio.to_thread.run_sync(listing)


@bp.post("/global/storage/repair")
async def storage_repair() -> Any:
    # Imported on first use: start-up mounts the route but repairs nothing.
    from ...files.repair import repair_store

    body = await object_body()
    force = body.get("force", False)
    if not isinstance(force, bool):
        raise ValidationFailed("`force` must be a boolean", field="force")
    return await repair_store(engine().store, force=force)
