"""Enterprise errors: the reference's codes, with its generic ``message`` next to our ``error``.

Every body is ``{"error": <what was wrong>, "code", "retryable", "message", "field"?}``:
``message`` is the reference's fixed text for the family (validation, not found,
storage), ``error`` says exactly what to fix.
"""

from __future__ import annotations

from typing import Any

from ..errors import SvcError

VALIDATION_MESSAGE = "enterprise request validation failed"
NOT_FOUND_MESSAGE = "enterprise resource was not found"


class EnterpriseError(SvcError):
    """An enterprise request failed."""

    code = "ENTERPRISE_ERROR"
    status = 400
    family_message = VALIDATION_MESSAGE

    def __init__(
        self, message: str | None = None, *, code: str, field: str | None = None, **extra: Any
    ) -> None:
        if field is not None:
            extra.setdefault("field", field)
        family = extra.pop("family_message", self.family_message)
        super().__init__(message, code=code, **extra)
        # `message` is the reference's field name; SvcError's own argument has the same name.
        self.extra["message"] = family


class EnterpriseInvalid(EnterpriseError):
    """The enterprise request is invalid."""

    status = 400


class EnterpriseNotFound(EnterpriseError):
    """The enterprise resource was not found."""

    status = 404
    family_message = NOT_FOUND_MESSAGE


class EnterpriseForbidden(EnterpriseError):
    """The principal may not do this."""

    status = 403

    def __init__(self, message: str, *, code: str, **extra: Any) -> None:
        super().__init__(message, code=code, family_message=message, **extra)


class EnterpriseConflict(EnterpriseError):
    """The request conflicts with the current state."""

    status = 409


__all__ = [
    "EnterpriseConflict",
    "EnterpriseError",
    "EnterpriseForbidden",
    "EnterpriseInvalid",
    "EnterpriseNotFound",
]
