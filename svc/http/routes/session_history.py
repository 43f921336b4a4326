"""A session's history as a whole: ``/session/{id}/fork``, ``children``, ``diff``, ``revert``,
``unrevert``, ``summarize`` and ``attach`` (also under ``/api``)."""

from __future__ import annotations

from typing import Any

import attrs
from quart import Blueprint

from ...convert import aliases, path_like, structure
from ...errors import ValidationFailed
from ..request import engine, json_body

bp = Blueprint("session_history", __name__)


@attrs.frozen
class ForkBody:
    message_id: str | None = aliases("messageID", "messageId", default=None)


@attrs.frozen
class RevertBody:
    message_id: str | None = aliases("messageID", "messageId", default=None)
    part_id: str | None = aliases("partID", "partId", default=None)


@attrs.frozen
class SummarizeBody:
    provider_id: str | None = aliases("providerID", "providerId", default=None)
    model_id: str | None = aliases("modelID", "modelId", default=None)


@attrs.frozen
class AttachBody:
    target_workspace: str | None = aliases(
        "targetWorkspace",
        "directory",
        "workspace_root",
        "workspaceRoot",
        default=None,
        validator=path_like,
    )
    parent_id: str | None = aliases("parentID", "parentId", default=None)


def _routes(path: str, **kwargs: Any) -> Any:
    """Mount a handler at ``path`` and at ``/api{path}``."""

    def wrap(fn: Any) -> Any:
        bp.route(path, **kwargs)(fn)
        bp.route("/api" + path, endpoint=fn.__name__ + "_api", **kwargs)(fn)
        return fn

    return wrap


@_routes("/session/<session_id>/fork", methods=["POST"])
async def fork_session(session_id: str) -> Any:
    body = structure(ForkBody, await json_body())
    child = await engine().sessions.fork(session_id, message_id=body.message_id)
    messages = await engine().sessions.messages(child.id)
    return child.to_wire(messages)


@_routes("/session/<session_id>/children", methods=["GET"])
async def session_children(session_id: str) -> Any:
    return [s.to_wire([]) for s in await engine().sessions.children(session_id)]


@_routes("/session/<session_id>/diff", methods=["GET"])
async def session_diff(session_id: str) -> Any:
    return await engine().sessions.diff(session_id)


@_routes("/session/<session_id>/revert", methods=["POST"])
async def revert_session(session_id: str) -> Any:
    body = structure(RevertBody, await json_body())
    return await engine().sessions.revert(session_id, body.message_id)


@_routes("/session/<session_id>/unrevert", methods=["POST"])
async def unrevert_session(session_id: str) -> Any:
    return await engine().sessions.unrevert(session_id)


@_routes("/session/<session_id>/summarize", methods=["POST"])
async def summarize_session(session_id: str) -> Any:
    body = structure(SummarizeBody, await json_body())
    if body.model_id and not body.provider_id:
        raise ValidationFailed("`providerID` is required with `modelID`", field="providerID")
    run, summary = await engine().sessions.summarize(
        session_id, provider_id=body.provider_id, model_id=body.model_id
    )
    return {
        "ok": run.status == "completed",
        "sessionID": session_id,
        "runID": run.id,
        "status": run.status,
        "summary": summary,
        "messageID": run.assistant_message_id,
        "error": {"code": run.error_code, "message": run.error_message} if run.error_code else None,
    }


@_routes("/session/<session_id>/attach", methods=["POST"])
async def attach_session(session_id: str) -> Any:
    body = structure(AttachBody, await json_body())
    eng = engine()
    if body.target_workspace is None and body.parent_id is None:
        raise ValidationFailed(
            "`target_workspace` (or `parentID`) is required", field="target_workspace"
        )
    previous = await eng.sessions.get(session_id)
    session = previous
    if body.parent_id is not None:
        if body.parent_id == session_id:
            raise ValidationFailed("a session cannot be its own parent", field="parentID")
        await eng.sessions.get(body.parent_id)  # 404 when the parent does not exist
        session = await eng.sessions.update(session_id, {"parent_id": body.parent_id})
    if body.target_workspace is not None:
        session = await eng.sessions.attach(session_id, body.target_workspace)
    return {
        "ok": True,
        "sessionID": session_id,
        "directory": session.directory,
        "workspaceRoot": session.directory,
        "previousDirectory": previous.directory,
        "parentID": session.parent_id,
        "session": session.to_wire([]),
    }
