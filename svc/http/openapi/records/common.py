"""Building blocks of the record schemas: scalar types and open objects."""

from __future__ import annotations

from typing import Any

from ..registry import Record, Schema, ref

STR: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
NUM: Schema = {"type": "number"}
BOOL: Schema = {"type": "boolean"}
ANY: Schema = {}
OBJ: Schema = {"type": "object"}
ARR: Schema = {"type": "array"}
NULL_STR: Schema = {"type": ["string", "null"]}
NULL_INT: Schema = {"type": ["integer", "null"]}
NULL_NUM: Schema = {"type": ["number", "null"]}
NULL_BOOL: Schema = {"type": ["boolean", "null"]}
NULL_OBJ: Schema = {"type": ["object", "null"]}
STRS: Schema = {"type": "array", "items": STR}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    """An open object: ``required`` fields always present, ``optional`` ones sometimes."""
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
    }


def array_of(item: Schema | Record) -> Schema:
    return {"type": "array", "items": ref(item.name) if isinstance(item, Record) else item}


def nullable(schema: Schema | Record) -> Schema:
    """``schema`` or null."""
    inner = ref(schema.name) if isinstance(schema, Record) else schema
    return {"anyOf": [inner, {"type": "null"}]}


def of(record: Record) -> Schema:
    """A record named inside another."""
    return ref(record.name)


def map_of(value: Schema | Record) -> Schema:
    """An object whose keys are ids and whose values are all ``value``."""
    return {
        "type": "object",
        "additionalProperties": of(value) if isinstance(value, Record) else value,
    }


def envelope(name: str, key: str, item: Record, extra: dict[str, Any] | None = None) -> Record:
    """``{key: [item, ...], ...extra}``: a list of records under one key."""
    return Record(name, obj({key: array_of(item), **(extra or {})}))


__all__ = [
    "ANY",
    "ARR",
    "BOOL",
    "INT",
    "NULL_BOOL",
    "NULL_INT",
    "NULL_NUM",
    "NULL_OBJ",
    "NULL_STR",
    "NUM",
    "OBJ",
    "STR",
    "STRS",
    "array_of",
    "envelope",
    "map_of",
    "nullable",
    "obj",
    "of",
]
