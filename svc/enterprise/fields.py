"""Reading the fields of enterprise bodies, with the reference's validation codes.

Ids (``unit_id``, ``binding_id`` ...) are trimmed, 1 to 96 characters of
``[A-Za-z0-9_-]``; a bad one is ``ENTERPRISE_<field>_INVALID`` with the field
name as written. External ids (``native_source_id``, ``resource_id``,
``member_id``, ``secret_id``) are trimmed, 1 to 512 characters, no control
characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import EnterpriseInvalid

_ID = re.compile(r"^[A-Za-z0-9_-]{1,96}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

DATA_CLASSES = (
    "public",
    "internal",
    "confidential",
    "restricted",
    "executive",
    "credential",
    "regulated",
    "customer_data",
    "source_code",
    "financial_record",
)
"""The named classes; a customer-specific class is any other valid id (``custom-legal``)."""

PERMISSIONS = ("view", "read", "edit", "execute", "delegate", "admin")
DESTRUCTIVE_ACTIONS = frozenset({"delete", "hard_delete", "destroy", "purge", "remove"})


def enterprise_id(value: Any, field: str, *, code: str | None = None) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if not _ID.match(text):
        raise EnterpriseInvalid(
            f"`{field}` must be 1 to 96 characters of letters, digits, `_` or `-`",
            code=code or f"ENTERPRISE_{field}_INVALID",
            field=field,
        )
    return text


def external_id(value: Any, field: str, *, code: str | None = None) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if not text or len(text) > 512 or _CONTROL.search(text):
        raise EnterpriseInvalid(
            f"`{field}` must be 1 to 512 characters without control characters",
            code=code or f"ENTERPRISE_{field}_INVALID",
            field=field,
        )
    return text


def optional_id(body: Mapping[str, Any], field: str) -> str | None:
    value = body.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return enterprise_id(value, field)


def text(body: Mapping[str, Any], field: str, *, default: str | None = None) -> str | None:
    value = body.get(field)
    if value is None:
        return default
    if not isinstance(value, str):
        raise EnterpriseInvalid(
            f"`{field}` must be a string", code=f"ENTERPRISE_{field}_INVALID", field=field
        )
    return value.strip() or default


def choice(body: Mapping[str, Any], field: str, allowed: Iterable[str], default: str) -> str:
    value = text(body, field, default=default) or default
    options = tuple(allowed)
    if value not in options:
        raise EnterpriseInvalid(
            f"`{field}` must be one of {', '.join(options)}",
            code=f"ENTERPRISE_{field}_INVALID",
            field=field,
        )
    return value


def millis(body: Mapping[str, Any], field: str) -> int | None:
    value = body.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise EnterpriseInvalid(
            f"`{field}` must be a non-negative integer",
            code=f"ENTERPRISE_{field}_INVALID",
            field=field,
        )
    return value


def flag(body: Mapping[str, Any], field: str, default: bool) -> bool:
    value = body.get(field)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise EnterpriseInvalid(
            f"`{field}` must be a boolean", code=f"ENTERPRISE_{field}_INVALID", field=field
        )
    return value


def strings(body: Mapping[str, Any], field: str, *, limit: int = 64) -> tuple[str, ...]:
    value = body.get(field)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise EnterpriseInvalid(
            f"`{field}` must be a list of strings",
            code=f"ENTERPRISE_{field}_INVALID",
            field=field,
        )
    out = tuple(dict.fromkeys(v.strip() for v in value if v.strip()))
    if len(out) > limit:
        raise EnterpriseInvalid(
            f"`{field}` holds at most {limit} entries",
            code=f"ENTERPRISE_{field}_INVALID",
            field=field,
        )
    return out


def data_class(value: Any, field: str = "data_class") -> str:
    """A named data class, or a customer-specific one (any valid id, lower-cased)."""
    return enterprise_id(value, field, code="ENTERPRISE_DATA_CLASS_INVALID").lower()


def data_classes(body: Mapping[str, Any], field: str = "data_classes") -> tuple[str, ...]:
    return tuple(data_class(v, f"{field}[{i}]") for i, v in enumerate(strings(body, field)))


def permissions(body: Mapping[str, Any], field: str = "permissions") -> tuple[str, ...]:
    found = strings(body, field)
    for index, value in enumerate(found):
        if value not in PERMISSIONS:
            raise EnterpriseInvalid(
                f"`{field}[{index}]` must be one of {', '.join(PERMISSIONS)}",
                code="ENTERPRISE_PERMISSION_INVALID",
                field=f"{field}[{index}]",
            )
    return found


def mapping(body: Mapping[str, Any], field: str) -> dict[str, Any] | None:
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise EnterpriseInvalid(
            f"`{field}` must be an object", code=f"ENTERPRISE_{field}_INVALID", field=field
        )
    return value


def is_destructive(action: Any) -> bool:
    return isinstance(action, str) and action.strip().lower() in DESTRUCTIVE_ACTIONS


__all__ = [
    "DATA_CLASSES",
    "DESTRUCTIVE_ACTIONS",
    "PERMISSIONS",
    "choice",
    "data_class",
    "data_classes",
    "enterprise_id",
    "external_id",
    "flag",
    "is_destructive",
    "mapping",
    "millis",
    "optional_id",
    "permissions",
    "strings",
    "text",
]
