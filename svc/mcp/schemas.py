"""Remote tool input schemas, made safe to hand to every model provider.

MCP servers publish JSON Schemas that some providers reject: an ``enum`` of
numbers, or an ``enum`` on a non-string type. Such an ``enum`` is dropped (the
server still validates what it receives); everything else is kept as published.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

_NESTED_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_NESTED_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NESTED_ONE = ("items", "additionalProperties", "not", "if", "then", "else")


def normalize_input_schema(schema: Any) -> dict[str, Any]:
    """A copy of ``schema`` that is an object schema, with unsafe ``enum`` lists removed."""
    if not isinstance(schema, Mapping):
        return {"type": "object", "properties": {}}
    clean = _clean(schema)
    clean.setdefault("type", "object")
    if clean.get("type") == "object" and not isinstance(clean.get("properties"), Mapping):
        clean["properties"] = {}
    return clean


def _clean(schema: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _NESTED_MAPS and isinstance(value, Mapping):
            out[key] = {k: _clean(v) if isinstance(v, Mapping) else v for k, v in value.items()}
        elif key in _NESTED_LISTS and isinstance(value, list):
            out[key] = [_clean(v) if isinstance(v, Mapping) else v for v in value]
        elif key in _NESTED_ONE and isinstance(value, Mapping):
            out[key] = _clean(value)
        else:
            out[key] = value
    if "enum" in out and not _string_enum(out):
        del out["enum"]
    return out


def _string_enum(schema: Mapping[str, Any]) -> bool:
    values = schema.get("enum")
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return False
    kind = schema.get("type")
    if kind is None or kind == "string":
        return True
    return isinstance(kind, list) and set(kind) <= {"string", "null"}


def schema_hash(schema: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the schema's canonical JSON (tells a changed schema from an unchanged one)."""
    text = json.dumps(
        schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()


__all__ = ["normalize_input_schema", "schema_hash"]
