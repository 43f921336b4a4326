"""Map every failure to the standard error body; never a traceback for bad input."""

from __future__ import annotations

import logging
from typing import Any

from quart import Quart, request
from werkzeug.exceptions import HTTPException

from actors import ActorDead, ActorError, AskTimeout, MailboxFull

from ..errors import SvcError

log = logging.getLogger("svc.http")

_HTTP_CODES = {
    400: "VALIDATION_FAILED",
    401: "AUTH_REQUIRED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    408: "REQUEST_TIMEOUT",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    429: "RATE_LIMITED",
}


def error_response(error: SvcError) -> tuple[dict[str, Any], int, dict[str, str]]:
    # A limit says when to come back (svc/limits.py); other errors carry no header.
    retry_after = getattr(error, "retry_after_s", None)
    headers = {"Retry-After": str(retry_after)} if isinstance(retry_after, int) else {}
    return error.to_body(), error.status, headers


def install_error_handlers(app: Quart) -> None:
    @app.errorhandler(SvcError)
    async def _svc_error(error: SvcError) -> Any:
        return error_response(error)

    @app.errorhandler(ActorError)
    async def _actor_error(error: ActorError) -> Any:
        # An actor's handler raised: a domain error keeps its own code.
        inner = error.error
        if isinstance(inner, SvcError):
            return error_response(inner)
        log.error("actor %s failed handling a request", error.actor_name, exc_info=inner)
        return {"error": "internal error", "code": "INTERNAL_ERROR", "retryable": True}, 500

    @app.errorhandler(MailboxFull)
    async def _mailbox_full(error: MailboxFull) -> Any:
        return {
            "error": "the engine is busy; retry shortly",
            "code": "ENGINE_BUSY",
            "retryable": True,
        }, 503

    @app.errorhandler(ActorDead)
    async def _actor_dead(error: ActorDead) -> Any:
        return {
            "error": "the target is restarting; retry shortly",
            "code": "ENGINE_BUSY",
            "retryable": True,
        }, 503

    @app.errorhandler(AskTimeout)
    async def _ask_timeout(error: AskTimeout) -> Any:
        return {
            "error": "the engine did not answer in time",
            "code": "ENGINE_TIMEOUT",
            "retryable": True,
        }, 503

    @app.errorhandler(HTTPException)
    async def _http_error(error: HTTPException) -> Any:
        status = error.code or 500
        code = _HTTP_CODES.get(status, "HTTP_ERROR")
        if status == 404:
            message = f"no route for {request.method} {request.path}"
        elif status == 405:
            message = f"method {request.method} is not allowed for {request.path}"
        elif status == 413:
            # A chunked body that grew past its route's limit while it was read.
            from .gate import request_body_limit, too_large

            return error_response(too_large(request_body_limit()))
        else:
            message = error.description or error.name
        return {"error": message, "code": code, "retryable": False}, status

    @app.errorhandler(Exception)
    async def _unexpected(error: Exception) -> Any:
        log.exception("unhandled error in %s %s", request.method, request.path)
        return {"error": "internal error", "code": "INTERNAL_ERROR", "retryable": True}, 500
