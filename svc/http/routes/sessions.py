"""Sessions and runs: ``/session/...`` (also under ``/api``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import attrs
from quart import Blueprint, request

from ...convert import aliases, path_like, structure
from ...errors import ValidationFailed
from ...events import EventFilter, json_frame
from ..request import engine, header, json_body, object_body, query_bool, query_int, query_str
from ..responses import no_content
from ..sse import event_frames, sse_response

# The sessions' request shapes and records are imported on first use: start-up
# mounts the routes but serves no request (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from ...sessions import RunRequest, Session, ToolMode

bp = Blueprint("sessions", __name__)

SYNC_TIMEOUT_S = 615.0


@attrs.frozen
class ModelBody:
    provider_id: str | None = aliases("providerID", "providerId", default=None)
    model_id: str | None = aliases("modelID", "modelId", default=None)


@attrs.frozen
class CreateBody:
    title: str | None = None
    directory: str | None = attrs.field(default=None, validator=path_like)
    workspace_root: str | None = aliases("workspaceRoot", default=None, validator=path_like)
    parent_id: str | None = aliases("parentID", "parentId", default=None)
    project_id: str | None = aliases("projectID", "projectId", default=None)
    model: ModelBody | None = None
    provider: str | None = None
    temperature: float | None = None
    top_p: float | None = aliases("topP", default=None)
    max_tokens: int | None = aliases("maxTokens", default=None)
    source_kind: str | None = aliases("sourceKind", default=None)
    source_metadata: dict[str, Any] | None = aliases("sourceMetadata", default=None)
    permission: list[Any] | None = None


@attrs.frozen
class PromptBody:
    parts: list[Any] = attrs.field(factory=list)
    model: ModelBody | None = None
    agent: str | None = None
    tool_mode: str | None = aliases("toolMode", default=None)
    tool_allowlist: list[str] | None = aliases("toolAllowlist", default=None)
    temperature: float | None = None
    top_p: float | None = aliases("topP", default=None)
    max_tokens: int | None = aliases("maxTokens", default=None)


@attrs.frozen
class PatchBody:
    title: str | None = None
    archived: bool | None = None
    model: ModelBody | None = None
    permission: list[Any] | None = None


def _routes(path: str, **kwargs: Any) -> Any:
    """Mount a handler at ``path`` and at ``/api{path}``."""

    def wrap(fn: Any) -> Any:
        bp.route(path, **kwargs)(fn)
        bp.route("/api" + path, endpoint=fn.__name__ + "_api", **kwargs)(fn)
        return fn

    return wrap


@_routes("/session", methods=["POST"])
async def create_session() -> Any:
    from ...sessions import CreateSession

    body = structure(CreateBody, await json_body())
    model = body.model or ModelBody()
    provider = model.provider_id or body.provider
    session = await engine().sessions.create(
        CreateSession(
            title=body.title,
            directory=body.directory or body.workspace_root,
            project_id=body.project_id,
            parent_id=body.parent_id,
            provider_id=provider if model.model_id else None,
            model_id=model.model_id,
            temperature=body.temperature,
            top_p=body.top_p,
            max_tokens=body.max_tokens,
            source_kind=body.source_kind,
            source_metadata=body.source_metadata,
        )
    )
    return session.to_wire([])


@_routes("/session", methods=["GET"])
async def list_sessions() -> Any:
    page = query_int("page", default=1, minimum=1)
    size = query_int("page_size", "pageSize", default=20, minimum=1, maximum=500, clamp=True)
    archived_raw = query_str("archived")
    sessions = await engine().sessions.list_sessions(
        query=query_str("q"),
        archived=query_bool("archived") if archived_raw is not None else False,
        directory=query_str("workspace"),
        source_kind=query_str("source"),
        limit=size or 20,
        offset=((page or 1) - 1) * (size or 20),
    )
    return [s.to_wire([]) for s in sessions]


@bp.get("/session/status")
async def session_status() -> Any:
    eng = engine()
    status: dict[str, Any] = {}
    for name in eng.actors.names("session/"):
        run = await eng.sessions.active_run(name.split("/", 1)[1])
        status[name.split("/", 1)[1]] = (
            {"type": "busy", "meta": {"runID": run.id}} if run else {"type": "idle"}
        )
    return status


@_routes("/session/<session_id>", methods=["GET"])
async def get_session(session_id: str) -> Any:
    eng = engine()
    session = await eng.sessions.get(session_id)
    return session.to_wire(await eng.sessions.messages(session_id))


@_routes("/session/<session_id>", methods=["PATCH"])
async def patch_session(session_id: str) -> Any:
    body = structure(PatchBody, await json_body())
    changes: dict[str, Any] = {}
    if body.title is not None:
        if not body.title.strip():
            raise ValidationFailed("`title` must not be empty", field="title")
        changes["title"] = body.title.strip()
    if body.archived is not None:
        changes["archived"] = body.archived
    if body.model is not None:
        changes["provider_id"] = body.model.provider_id
        changes["model_id"] = body.model.model_id
    session = await engine().sessions.update(session_id, changes)
    return session.to_internal()


@_routes("/session/<session_id>", methods=["DELETE"])
async def delete_session(session_id: str) -> Any:
    return await engine().sessions.delete(session_id)


@_routes("/session/<session_id>/message", methods=["GET"])
async def session_messages(session_id: str) -> Any:
    return [m.to_wire() for m in await engine().sessions.messages(session_id)]


@_routes("/session/<session_id>/message", methods=["POST"])
async def append_message(session_id: str) -> Any:
    parts = (await object_body()).get("parts")
    if parts is not None and not isinstance(parts, list):
        raise ValidationFailed("`parts` must be an array of parts", field="parts")
    message = await engine().sessions.append_message(session_id, parts or [])
    return message.to_wire()


@_routes("/session/<session_id>/todo", methods=["GET"])
async def session_todos(session_id: str) -> Any:
    session = await engine().sessions.get(session_id)
    return [dict(t) for t in session.todos]


async def _run_request(session: Session) -> RunRequest:
    from ...sessions import RunRequest, request_hash

    raw = await json_body()
    body = structure(PromptBody, raw)
    parts = engine().sessions.validate_parts(
        session, raw.get("parts") if isinstance(raw, Mapping) else None
    )
    if body.tool_mode is not None and body.tool_mode not in ("auto", "none", "required"):
        raise ValidationFailed("`toolMode` must be auto, none or required", field="toolMode")
    model = body.model or ModelBody()
    if model.model_id and not model.provider_id:
        raise ValidationFailed(
            "`model.providerID` is required with `model.modelID`", field="model.providerID"
        )
    return RunRequest(
        parts=parts,
        provider_id=model.provider_id,
        model_id=model.model_id,
        agent=body.agent,
        tool_mode=cast("ToolMode", body.tool_mode or "auto"),  # checked above
        tool_allowlist=tuple(body.tool_allowlist) if body.tool_allowlist is not None else None,
        temperature=body.temperature,
        top_p=body.top_p,
        max_tokens=body.max_tokens,
        client_id=header("x-svc-client-id"),
        agent_id=header("x-svc-agent-id"),
        idempotency_key=header("idempotency-key") or header("x-svc-idempotency-key"),
        request_hash=request_hash(raw),
    )


@_routes("/session/<session_id>/prompt_async", methods=["POST"])
async def prompt_async(session_id: str) -> Any:
    from ...sessions import attach_hint

    eng = engine()
    session = await eng.sessions.get(session_id)
    started = await eng.sessions.prompt(session_id, await _run_request(session))
    run = started.run
    headers = {"x-svc-run-id": run.id}
    if query_str("return") != "run":
        return no_content(headers)
    body: dict[str, Any] = {
        "runID": run.id,
        "sessionID": session_id,
        "contextRunID": f"session-{session_id}",
        "linked_context_run_id": f"session-{session_id}",
        "attachEventStream": attach_hint(session_id, run.id),
    }
    if started.replayed:
        body["idempotentReplay"] = True
    return body, 202, headers


@_routes("/session/<session_id>/prompt_sync", methods=["POST"])
async def prompt_sync(session_id: str) -> Any:
    from ...channels import prompt_refusal

    eng = engine()
    session = await eng.sessions.get(session_id)
    refusal = prompt_refusal(eng, session)  # a channel user past the per-user limit
    if refusal is not None:
        return refusal.to_body(), refusal.status, {"Retry-After": str(refusal.retry_after_s)}
    run_request = await _run_request(session)
    if "text/event-stream" in request.headers.get("Accept", ""):
        cursor = eng.events.committed_seq
        started = await eng.sessions.prompt(session_id, run_request)
        run_id = started.run.id
        preamble = [
            json_frame(
                {
                    "type": "session.run.started",
                    "properties": {"sessionID": session_id, "runID": run_id, "channel": "system"},
                }
            )
        ]
        body = event_frames(
            eng.events,
            EventFilter(session_id=session_id, run_id=run_id),
            after_seq=cursor,
            preamble=preamble,
            until=lambda e: e.type == "session.run.finished" and e.run_id == run_id,
        )
        return sse_response(body, headers={"x-svc-run-id": run_id})
    started = await eng.sessions.prompt(session_id, run_request)
    run = await eng.sessions.wait(started, timeout=SYNC_TIMEOUT_S)
    text = await eng.sessions.reply_text(run)
    messages = await eng.sessions.messages(session_id)
    return {
        "runID": run.id,
        "sessionID": session_id,
        "status": run.status,
        "reply": text,
        "text": text,
        "output": text,
        "error": {"code": run.error_code, "message": run.error_message} if run.error_code else None,
        "usage": run.usage.to_wire(),
        "messages": [m.to_wire() for m in messages],
    }


@_routes("/session/<session_id>/run", methods=["GET"])
async def get_active_run(session_id: str) -> Any:
    from ...sessions import attach_hint

    run = await engine().sessions.active_run(session_id)
    if run is None:
        return {"active": None}
    return {
        "active": run.active_wire(),
        "contextRunID": f"session-{session_id}",
        "linked_context_run_id": f"session-{session_id}",
        "attachEventStream": attach_hint(session_id, run.id),
    }


@_routes("/session/<session_id>/abort", methods=["POST"])
@_routes("/session/<session_id>/cancel", methods=["POST"])
async def cancel_session(session_id: str) -> Any:
    cancelled = await engine().sessions.cancel(session_id)
    return {"ok": True, "cancelled": cancelled, "closedBrowserSessions": 0}


@_routes("/session/<session_id>/run/<run_id>/cancel", methods=["POST"])
async def cancel_run(session_id: str, run_id: str) -> Any:
    cancelled = await engine().sessions.cancel(session_id, run_id)
    return {"ok": True, "cancelled": cancelled, "closedBrowserSessions": 0}
