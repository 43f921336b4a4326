"""One exception tree with stable codes.

Every error the engine reports to a client is an :class:`SvcError` subclass. The
HTTP layer renders it as ``{"error": <message>, "code": <CODE>, "retryable": <bool>}``
plus the error's ``extra`` fields; the CLI prints the message and exits non-zero.
Codes are part of the wire contract: never rename one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


class SvcError(Exception):
    """Base of every error with a stable code.

    ``extra`` holds fields the spec names for a specific case (for example
    ``activeRun`` on a run conflict); they are merged into the JSON body.
    """

    code: ClassVar[str] = "INTERNAL_ERROR"
    status: ClassVar[int] = 500
    retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        status: int | None = None,
        retryable: bool | None = None,
        **extra: Any,
    ) -> None:
        self.message = message or self.default_message()
        super().__init__(self.message)
        # Instance overrides let one class cover a family of closely related codes.
        if code is not None:
            self.code = code  # type: ignore[misc]
        if status is not None:
            self.status = status  # type: ignore[misc]
        if retryable is not None:
            self.retryable = retryable  # type: ignore[misc]
        self.extra: dict[str, Any] = extra

    @classmethod
    def default_message(cls) -> str:
        return cls.__doc__.strip().splitlines()[0] if cls.__doc__ else cls.code

    def to_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "error": self.message,
            "code": self.code,
            "retryable": self.retryable,
        }
        body.update(self.extra)
        return body


class ValidationFailed(SvcError):
    """The request is malformed."""

    code = "VALIDATION_FAILED"
    status = 400

    def __init__(
        self, message: str | None = None, *, field: str | None = None, **extra: Any
    ) -> None:
        if field is not None:
            extra.setdefault("field", field)
        super().__init__(message, **extra)


class AuthRequired(SvcError):
    """Unauthorized: missing or invalid API token"""

    code = "AUTH_REQUIRED"
    status = 401


class Forbidden(SvcError):
    """The request is not allowed."""

    code = "FORBIDDEN"
    status = 403


class NotFound(SvcError):
    """The requested resource does not exist."""

    code = "NOT_FOUND"
    status = 404


class MethodNotAllowed(SvcError):
    """The method is not allowed for this path."""

    code = "METHOD_NOT_ALLOWED"
    status = 405


class Conflict(SvcError):
    """The request conflicts with the current state."""

    code = "CONFLICT"
    status = 409


class Gone(SvcError):
    """The requested data is no longer retained."""

    code = "GONE"
    status = 410


class PayloadTooLarge(SvcError):
    """Request body exceeds the limit of its route."""

    code = "PAYLOAD_TOO_LARGE"
    status = 413


class UnsupportedMediaType(SvcError):
    """The request body must be JSON."""

    code = "UNSUPPORTED_MEDIA_TYPE"
    status = 415


class Unprocessable(SvcError):
    """The request is well-formed but cannot be processed."""

    code = "UNPROCESSABLE"
    status = 422


class Busy(SvcError):
    """The engine is busy; retry shortly."""

    code = "ENGINE_BUSY"
    status = 503
    retryable = True


class EngineStarting(SvcError):
    """Engine starting"""

    code = "ENGINE_STARTING"
    status = 503
    retryable = True


class PersistenceFailed(SvcError):
    """The change could not be persisted."""

    code = "PERSISTENCE_FAILED"
    status = 500
    retryable = True


class InternalError(SvcError):
    """Internal error."""

    code = "INTERNAL_ERROR"
    status = 500
    retryable = True


class ConfigError(SvcError):
    """The configuration is invalid."""

    code = "CONFIG_INVALID"
    status = 400


def error_body(
    message: str, code: str, *, retryable: bool = False, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Render an ad-hoc error body in the standard envelope."""
    body: dict[str, Any] = {"error": message, "code": code, "retryable": retryable}
    if extra:
        body.update(extra)
    return body


__all__ = [
    "AuthRequired",
    "Busy",
    "ConfigError",
    "Conflict",
    "EngineStarting",
    "Forbidden",
    "Gone",
    "InternalError",
    "MethodNotAllowed",
    "NotFound",
    "PayloadTooLarge",
    "PersistenceFailed",
    "SvcError",
    "Unprocessable",
    "UnsupportedMediaType",
    "ValidationFailed",
    "error_body",
]
