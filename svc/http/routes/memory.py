"""Memory over HTTP: put, search, promote, demote, list, get, delete, audit, import.

Every body is accepted in its governed shape and in the simple shape clients
send (see ``svc.memory.requests``); the logic lives in ``svc.memory``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint, request

from ...errors import NotFound, ValidationFailed
from ..request import engine, json_body, object_body, query_int, query_str

# The body parsers (svc.memory.requests) are imported on first use: start-up
# mounts the routes but parses no body (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from ...memory import MemoryService

bp = Blueprint("memory", __name__)


def memory() -> MemoryService:
    service = engine().memory
    if service is None:
        raise NotFound("memory is not enabled in this engine")
    return service


def _tags() -> list[str]:
    tags: list[str] = []
    for value in request.args.getlist("tags") + request.args.getlist("tag"):
        tags.extend(t for t in value.split(",") if t.strip())
    channel = query_str("channel_tag", "channelTag")
    if channel:
        tags.append(channel)
    return tags


@bp.post("/memory/put")
async def put() -> Any:
    from ...memory import parse_put

    return await memory().put(parse_put(await json_body()))


@bp.post("/memory/search")
async def search() -> Any:
    from ...memory import parse_search

    return await memory().search(parse_search(await json_body()))


@bp.post("/memory/promote")
async def promote() -> Any:
    from ...memory import parse_promote

    return await memory().promote(parse_promote(await json_body()))


@bp.post("/memory/demote")
async def demote() -> Any:
    from ...memory import parse_demote

    return await memory().demote(parse_demote(await json_body()))


@bp.get("/memory")
async def list_memory() -> Any:
    service = memory()
    limit = query_int("limit", default=100, minimum=1, maximum=1000, clamp=True) or 100
    offset = query_int("offset", default=0, minimum=0) or 0
    tier = query_str("tier")
    session_id = query_str("session_id", "sessionID")
    project_id = query_str("project_id", "projectID")
    scope = await service.operator_scope(
        session_id=session_id, project_id=project_id, tiers=[tier] if tier else None, field="tier"
    )
    kind = query_str("kind")
    items, total = await service.page(
        scope,
        text=query_str("q", "query"),
        tags=_tags(),
        kinds=[kind] if kind else (),
        limit=limit,
        offset=offset,
    )
    return {
        "items": [r.to_wire() for r in items],
        "count": len(items),
        "total": total,
        "offset": offset,
        "limit": limit,
    }


@bp.get("/memory/audit")
async def audit() -> Any:
    limit = query_int("limit", default=100, minimum=1, maximum=500, clamp=True) or 100
    entries = await memory().audit(run_id=query_str("run_id", "runID"), limit=limit)
    return {"events": entries, "entries": entries, "count": len(entries)}


@bp.get("/memory/<record_id>")
async def get_memory(record_id: str) -> Any:
    return (await memory().get(record_id)).to_wire()


@bp.delete("/memory/<record_id>")
async def delete(record_id: str) -> Any:
    return await memory().delete(
        record_id, project_id=query_str("project_id", "projectID"), tags=_tags(), actor="http"
    )


@bp.post("/memory/import")
async def import_memory() -> Any:
    from ...memory import parse_import

    summary = await memory().import_body(parse_import(await json_body()))
    return summary.to_wire()


# ------------------------------------------------------------------ context (svc/memory/context.py)
def _context() -> Any:
    # Imported on first use: start-up mounts the routes but walks no tree.
    from ...memory.context import MemoryContext

    return MemoryContext(memory())


def _required(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed(f"`{name}` is required", field=name)
    return value


@bp.post("/memory/context/resolve")
async def context_resolve() -> Any:
    return await _context().resolve(_required(await object_body(), "uri"))


@bp.get("/memory/context/tree")
async def context_tree() -> Any:
    uri = query_str("uri") or "svc://memory"
    depth = query_int("max_depth", "maxDepth", default=2, minimum=0, maximum=5, clamp=True)
    return await _context().tree(uri, max_depth=2 if depth is None else depth)


@bp.post("/memory/context/layers/generate")
async def context_layers() -> Any:
    body = await object_body()
    node = body.get("node_id") or body.get("nodeId") or body.get("uri")
    return await _context().layers(_required({"node_id": node}, "node_id"))


@bp.post("/memory/context/distill")
async def context_distill() -> Any:
    body = await object_body()
    session_id = _required(
        {"session_id": body.get("session_id") or body.get("sessionID")}, "session_id"
    )
    conversation = body.get("conversation")
    if not isinstance(conversation, list) or not all(isinstance(c, str) for c in conversation):
        raise ValidationFailed("`conversation` must be an array of strings", field="conversation")
    return await _context().distill(session_id, conversation)
