"""Permission requests and questions: list and answer them."""

from __future__ import annotations

from typing import Any

from quart import Blueprint

from ...errors import Forbidden
from ..request import engine, header, object_body

bp = Blueprint("approvals", __name__)


def _human() -> str:
    # Agents must not approve their own tool calls (SPEC §5.10).
    if header("x-svc-agent-id"):
        raise Forbidden("Unauthorized: tenant context denied", code="TENANT_CONTEXT_DENIED")
    return header("x-svc-request-source") or "user"


@bp.get("/permission")
async def permissions() -> Any:
    return await engine().permissions.listing()


@bp.post("/permission/<request_id>/reply")
async def permission_reply(request_id: str) -> Any:
    decided_by = _human()
    body = await object_body()
    return await engine().permissions.reply(request_id, body.get("reply"), decided_by=decided_by)


@bp.post("/sessions/<session_id>/tools/<request_id>/approve")
async def tool_approve(session_id: str, request_id: str) -> Any:
    await engine().permissions.reply(request_id, "once", decided_by=_human())
    return {"ok": True}


@bp.post("/sessions/<session_id>/tools/<request_id>/deny")
async def tool_deny(session_id: str, request_id: str) -> Any:
    await engine().permissions.reply(request_id, "reject", decided_by=_human())
    return {"ok": True}


@bp.get("/question")
async def questions() -> Any:
    return [q.to_wire() for q in await engine().questions.pending()]


@bp.post("/question/<question_id>/reply")
async def question_reply(question_id: str) -> Any:
    _human()
    return await engine().questions.reply(question_id, await object_body())


@bp.post("/question/<question_id>/reject")
async def question_reject(question_id: str) -> Any:
    _human()
    return await engine().questions.reject(question_id)


@bp.post("/sessions/<session_id>/questions/<question_id>/answer")
async def question_answer(session_id: str, question_id: str) -> Any:
    _human()
    return await engine().questions.reply(question_id, await object_body())
