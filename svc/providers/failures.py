"""How an upstream failure becomes a :class:`ProviderError` (pure functions).

Every message names the provider, carries the HTTP status when there is one and
at most :data:`MAX_UPSTREAM_MESSAGE` characters of what upstream said, and is
scrubbed of registered secrets: providers echo parts of requests (sometimes the
key itself) in their error bodies.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from ..logs import REDACTED, scrub
from .catalog import key_hint
from .types import (
    AUTHENTICATION_ERROR,
    CONTEXT_LENGTH_EXCEEDED,
    PROVIDER_REQUEST_INVALID,
    PROVIDER_SERVER_ERROR,
    PROVIDER_STREAM_INTERRUPTED,
    PROVIDER_UNAVAILABLE,
    RATE_LIMIT_EXCEEDED,
    Completion,
    ProviderError,
)

MAX_UPSTREAM_MESSAGE = 500

CONTEXT_LENGTH_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "prompt is too long",
    "too many tokens",
)

# Our own HTTP status for each code (what a synchronous caller would see).
_STATUS = {
    AUTHENTICATION_ERROR: 502,
    RATE_LIMIT_EXCEEDED: 429,
    CONTEXT_LENGTH_EXCEEDED: 400,
    PROVIDER_REQUEST_INVALID: 502,
    PROVIDER_SERVER_ERROR: 502,
    PROVIDER_UNAVAILABLE: 503,
    PROVIDER_STREAM_INTERRUPTED: 502,
}
_RETRYABLE = {
    AUTHENTICATION_ERROR: False,
    RATE_LIMIT_EXCEEDED: True,
    CONTEXT_LENGTH_EXCEEDED: False,
    PROVIDER_REQUEST_INVALID: False,
    PROVIDER_SERVER_ERROR: True,
    PROVIDER_UNAVAILABLE: True,
    PROVIDER_STREAM_INTERRUPTED: True,
}


def clean(text: str, secret: str | None = None) -> str:
    """``text`` without registered secrets (and ``secret``), bounded in length."""
    text = scrub(text)
    if secret:
        text = text.replace(secret, REDACTED)
    text = " ".join(text.split())
    if len(text) > MAX_UPSTREAM_MESSAGE:
        text = text[: MAX_UPSTREAM_MESSAGE - 1] + "…"
    return text


def upstream_message(body: str) -> str:
    """The human part of an error body.

    ``error.message``, ``message``, ``detail`` or the raw text.
    """
    try:
        data: Any = json.loads(body)
    except ValueError:
        return body.strip()
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        for candidate in (error, data.get("message"), data.get("detail")):
            if isinstance(candidate, str) and candidate:
                return candidate
    return body.strip()


def is_context_length(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in CONTEXT_LENGTH_MARKERS)


def code_for_status(status: int, body: str) -> str:
    if status in (401, 403):
        return AUTHENTICATION_ERROR
    if status == 429:
        return RATE_LIMIT_EXCEEDED
    if status in (400, 413, 422) and is_context_length(body):
        return CONTEXT_LENGTH_EXCEEDED
    if 400 <= status < 500:
        return PROVIDER_REQUEST_INVALID
    return PROVIDER_SERVER_ERROR


def provider_error(
    provider: str,
    code: str,
    message: str,
    *,
    upstream_status: int | None = None,
    partial: Completion | None = None,
) -> ProviderError:
    error = ProviderError(
        message,
        code=code,
        provider=provider,
        upstream_status=upstream_status,
        retryable=_RETRYABLE.get(code, True),
        status=_STATUS.get(code, 502),
    )
    error.partial = partial
    return error


def error_for_status(
    provider: str, status: int, body: str, *, secret: str | None = None
) -> ProviderError:
    """An HTTP error response (``status`` >= 400) as a ProviderError."""
    code = code_for_status(status, body)
    detail = clean(upstream_message(body), secret) or httpx.codes.get_reason_phrase(status)
    return provider_error(
        provider,
        code,
        f"provider `{provider}` returned HTTP {status}: {detail}{_fix(provider, code)}",
        upstream_status=status,
    )


def _fix(provider: str, code: str) -> str:
    """What to fix, after the provider's own words: a rejected key names its variable."""
    if code == AUTHENTICATION_ERROR:
        return f" (check {key_hint(provider)})"
    return ""


def error_for_transport(
    provider: str, exc: httpx.RequestError, url: str, *, secret: str | None = None
) -> ProviderError:
    """A connect error or timeout before anything streamed."""
    what = "timed out" if isinstance(exc, httpx.TimeoutException) else "is unreachable"
    detail = clean(f"{type(exc).__name__}: {exc}", secret)
    return provider_error(
        provider,
        PROVIDER_UNAVAILABLE,
        f"provider `{provider}` {what} ({clean(url, secret)}): {detail}",
    )


def stream_interrupted(
    provider: str, reason: str, partial: Completion, *, secret: str | None = None
) -> ProviderError:
    """The response stream broke or ended before its terminator; ``partial`` is what arrived."""
    return provider_error(
        provider,
        PROVIDER_STREAM_INTERRUPTED,
        f"provider `{provider}` stream interrupted: {clean(reason, secret)}",
        partial=partial,
    )


def error_for_event(
    provider: str, error_type: str, message: str, *, secret: str | None = None
) -> ProviderError:
    """An error reported inside a stream.

    Anthropic ``error`` events, OpenAI ``{"error": ...}`` chunks.
    """
    kind = error_type.lower()
    if "rate_limit" in kind or kind in ("429", "too_many_requests"):
        code = RATE_LIMIT_EXCEEDED
    elif "authentication" in kind or "permission" in kind or kind in ("401", "403"):
        code = AUTHENTICATION_ERROR
    elif is_context_length(message) or is_context_length(kind):
        code = CONTEXT_LENGTH_EXCEEDED
    elif "invalid_request" in kind or "not_found" in kind or kind in ("400", "404", "422"):
        code = PROVIDER_REQUEST_INVALID
    else:  # overloaded_error, api_error, server_error and anything unknown
        code = PROVIDER_SERVER_ERROR
    detail = clean(f"{error_type}: {message}" if error_type else message, secret)
    return provider_error(
        provider, code, f"provider `{provider}` reported an error: {detail}{_fix(provider, code)}"
    )
