"""A small JSON-schema subset for artifact contracts and wait payloads.

Supported keywords: ``type`` (a name or a list of names), ``required``, ``properties``
(nested), ``items`` and ``enum``. Anything else is ignored, so a richer schema is checked
for what this subset understands and never rejected for what it does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, Mapping),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_errors(schema: Any, value: Any, path: str = "$") -> list[str]:
    """Every violation of ``schema`` by ``value`` (empty when it conforms)."""
    if not isinstance(schema, Mapping):
        return []
    errors: list[str] = []
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        known = [n for n in names if n in _TYPES]
        if known and not any(_TYPES[n](value) for n in known):
            errors.append(f"{path} must be {' or '.join(known)}")
            return errors
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        errors.append(f"{path} must be one of {enum}")
    if isinstance(value, Mapping):
        required = schema.get("required")
        if isinstance(required, list):
            errors.extend(
                f"{path}.{name} is required"
                for name in required
                if isinstance(name, str) and name not in value
            )
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            for name, sub in properties.items():
                if name in value:
                    errors.extend(schema_errors(sub, value[name], f"{path}.{name}"))
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            errors.extend(schema_errors(schema["items"], item, f"{path}[{index}]"))
    return errors


__all__ = ["schema_errors"]
