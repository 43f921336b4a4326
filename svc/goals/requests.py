"""Bodies of goal requests (start, transition, completion) and their checks.

Errors are :class:`InvalidGoalRequest` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import attrs

from ..convert import structure
from ..errors import ValidationFailed
from .errors import InvalidGoalRequest

MAX_KEY_BYTES = 256
MAX_METADATA_BYTES = 16 * 1024

T = TypeVar("T")


@attrs.frozen
class StartGoal:
    orchestration_id: str
    objective: str
    idempotency_key: str
    orchestration_version: int | None = None
    metadata: Any = None


@attrs.frozen
class TransitionBody:
    transition_key: str
    idempotency_key: str
    artifact: Any = None


@attrs.frozen
class CompletionBody:
    transition_key: str | None = None
    final_artifact: Any = None


def _parse(cls: type[T], data: Any) -> T:
    try:
        return structure(cls, data)
    except ValidationFailed as exc:
        raise InvalidGoalRequest(exc.message, field=exc.extra.get("field")) from None


def check_key(value: str, field: str = "idempotency_key") -> str:
    """``value`` stripped; a blank or oversized key is refused."""
    key = value.strip()
    if not key:
        raise InvalidGoalRequest(f"`{field}` must not be blank", field=field)
    if len(key.encode()) > MAX_KEY_BYTES:
        raise InvalidGoalRequest(f"`{field}` exceeds {MAX_KEY_BYTES} bytes", field=field)
    return key


def parse_start(data: Any) -> StartGoal:
    return _parse(StartGoal, data)


def parse_transition(data: Any) -> TransitionBody:
    return _parse(TransitionBody, data)


def parse_completion(data: Any) -> CompletionBody:
    return _parse(CompletionBody, data if data is not None else {})


def reason_of(data: Mapping[str, Any] | None) -> str | None:
    value = (data or {}).get("reason")
    if value is not None and not isinstance(value, str):
        raise InvalidGoalRequest("`reason` must be a string", field="reason")
    return value.strip() if value and value.strip() else None


__all__ = [
    "MAX_KEY_BYTES",
    "MAX_METADATA_BYTES",
    "CompletionBody",
    "StartGoal",
    "TransitionBody",
    "check_key",
    "parse_completion",
    "parse_start",
    "parse_transition",
    "reason_of",
]
