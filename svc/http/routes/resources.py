"""The key/value resource store over HTTP: list, write, get, patch, delete, events.

Keys may contain ``/`` (``agent-config/model``); ``GET /resource/events`` is the
event stream, so a key spelled ``events`` is read through ``GET /resource?prefix=``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from quart import Blueprint

from ...events import EventFilter, json_frame
from ..request import engine, object_body, query_int, query_str
from ..sse import event_frames, resume_cursor, sse_response

if TYPE_CHECKING:
    from ...events import Event
    from ...resources import Resource, ResourceService

bp = Blueprint("resources", __name__)


def service() -> ResourceService:
    # Imported on first use: start-up mounts the routes but reads no resource.
    from ...resources import ResourceService

    eng = engine()
    return ResourceService(eng.store, eng.events, eng.clock)


def _written(resource: Resource) -> dict[str, Any]:
    return {"ok": True, **resource.to_wire()}


@bp.get("/resource")
async def list_resources() -> Any:
    limit = query_int("limit", default=None, minimum=1, maximum=1000, clamp=True)
    items = await service().page(prefix=query_str("prefix"), limit=limit)
    return {"items": [r.to_wire() for r in items], "count": len(items)}


@bp.put("/resource")
async def write_resource() -> Any:
    from ...resources import check_key

    body = await object_body()
    return _written(await service().write(check_key(body.get("key")), body))


@bp.delete("/resource")
async def delete_resource() -> Any:
    from ...resources import check_key, optional_int

    body = await object_body()
    removed = await service().delete(
        check_key(body.get("key")), expected_rev=optional_int(body, "if_match_rev", "ifMatchRev")
    )
    return {"ok": True, "deleted": True, "key": removed.key, "rev": removed.rev}


@bp.get("/resource/events")
async def resource_events() -> Any:
    """SSE of ``resource.updated`` / ``resource.deleted``; ``since_seq`` or ``tail`` replay."""
    from ...resources import TOPIC

    eng = engine()
    after = resume_cursor("since_seq", "cursor")
    tail = query_int("tail", default=None, minimum=1, maximum=1000, clamp=True)
    if after is None:
        # Fixed now, not when the body starts streaming: a change committed in
        # between would otherwise fall before the stream's starting point.
        after = eng.events.committed_seq
        if tail is not None:
            recent = await eng.events.replay(EventFilter(topic=TOPIC), limit=tail, tail=True)
            if recent:
                after = recent[0].seq - 1
    preamble = [json_frame({"type": "resource.stream.connected", "properties": {}})]
    body = event_frames(
        eng.events, EventFilter(topic=TOPIC), after_seq=after, preamble=preamble, render=_render
    )
    return sse_response(body)


def _render(event: Event) -> bytes:
    # Flat frames: the seq and event id sit beside the type, where clients read them.
    payload = {
        "type": event.type,
        "properties": event.properties,
        "seq": event.seq,
        "event_id": event.event_id,
        "occurred_at_ms": event.occurred_at_ms,
    }
    return b"id: %d\ndata: %s\n\n" % (event.seq, json.dumps(payload).encode())


@bp.get("/resource/<path:key>")
async def get_resource(key: str) -> Any:
    return (await service().get(key)).to_wire()


@bp.put("/resource/<path:key>")
async def put_resource(key: str) -> Any:
    return _written(await service().write(key, await object_body(), key_field="key"))


@bp.patch("/resource/<path:key>")
async def patch_resource(key: str) -> Any:
    return _written(await service().patch(key, await object_body()))


@bp.delete("/resource/<path:key>")
async def delete_resource_key(key: str) -> Any:
    removed = await service().delete(key)
    return {"ok": True, "deleted": True, "key": removed.key, "rev": removed.rev}
