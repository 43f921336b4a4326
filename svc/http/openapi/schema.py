"""JSON Schema (2020-12, as OpenAPI 3.1 uses it) of the attrs classes requests are structured into.

Hand-written rather than a library: the request classes are attrs classes
converted by our own cattrs converter, whose rules (strict JSON types, signed
64-bit integers, path-like strings, camelCase aliases folded onto snake_case
names) are what the schema must state; the schema libraries of the ecosystem
describe pydantic models or dataclasses, not attrs under cattrs. The mapping
covers the types request classes use; anything else is described as any value
(``{}``), which is never wrong, only less precise.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, get_args, get_origin

import attrs

from ...convert import INT64_MAX, INT64_MIN, MAX_PATH_CHARS, path_like

Schema = dict[str, Any]

INT64: Schema = {"type": "integer", "format": "int64", "minimum": INT64_MIN, "maximum": INT64_MAX}


class SchemaBuilder:
    """Collects the component schemas of every attrs class it is asked about."""

    def __init__(self) -> None:
        self.components: dict[str, Schema] = {}
        self._names: dict[type, str] = {}

    def ref(self, cls: type) -> Schema:
        """``{"$ref": ...}`` to ``cls``'s component, building it (and its fields' classes) once."""
        name = self._names.get(cls)
        if name is None:
            name = self._unique_name(cls)
            self._names[cls] = name
            self.components[name] = {}  # reserved first: a class may refer to itself
            self.components[name] = self._object(cls)
        return {"$ref": f"#/components/schemas/{name}"}

    def of(self, tp: Any) -> Schema:
        """The schema of the type annotation ``tp``."""
        if tp is Any or tp is object or tp is None:
            return {} if tp is not None else {"type": "null"}
        if tp is type(None):
            return {"type": "null"}
        if isinstance(tp, type) and attrs.has(tp):
            return self.ref(tp)
        if tp is bool:
            return {"type": "boolean"}
        if tp is int:
            return dict(INT64)
        if tp is float:
            return {"type": "number"}
        if tp is str:
            return {"type": "string"}
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return {"enum": [m.value for m in tp]}
        origin = get_origin(tp)
        args = get_args(tp)
        if origin is typing.Literal:
            return {"enum": list(args)}
        if origin in (typing.Union, types.UnionType):
            options = [self.of(a) for a in args]
            return options[0] if len(options) == 1 else {"anyOf": options}
        if origin is typing.Annotated:
            return self.of(args[0])
        if tp in (dict, Mapping) or origin in (dict, Mapping):
            value = self.of(args[1]) if len(args) == 2 else {}
            return (
                {"type": "object", "additionalProperties": value} if value else {"type": "object"}
            )
        if tp in (list, tuple, Sequence) or origin in (list, tuple, Sequence):
            if origin is tuple and args and args[-1] is not Ellipsis:
                return {"type": "array", "prefixItems": [self.of(a) for a in args]}
            item = self.of(args[0]) if args else {}
            return {"type": "array", "items": item} if item else {"type": "array"}
        return {}

    def _object(self, cls: type) -> Schema:
        attrs.resolve_types(cls)
        properties: dict[str, Schema] = {}
        required: list[str] = []
        for field in attrs.fields(cls):
            prop = self.of(field.type)
            if _is_path_like(field.validator):
                prop = _with_path_limit(prop)
            described = field.metadata.get("aliases")
            if described:
                prop = {**prop, "description": "also accepted as " + ", ".join(described)}
            properties[field.name] = prop
            if field.default is attrs.NOTHING:
                required.append(field.name)
        schema: Schema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        doc = (cls.__doc__ or "").strip()
        if doc and not doc.startswith(cls.__name__ + "("):  # attrs' generated repr-like doc
            schema["description"] = doc.split("\n\n", 1)[0]
        return schema

    def _unique_name(self, cls: type) -> str:
        name = cls.__name__
        if name in self.components:
            name = f"{cls.__module__.rsplit('.', 1)[-1].title()}{cls.__name__}"
        while name in self.components:
            name += "_"
        return name


def _is_path_like(validator: Any) -> bool:
    if validator is path_like:
        return True
    inner = getattr(validator, "_validators", None) or ()
    return any(v is path_like for v in inner)


def _with_path_limit(prop: Schema) -> Schema:
    if prop.get("type") == "string":
        return {**prop, "maxLength": MAX_PATH_CHARS, "pattern": "^[^\\u0000]*$"}
    if "anyOf" in prop:
        return {**prop, "anyOf": [_with_path_limit(p) for p in prop["anyOf"]]}
    return prop


__all__ = ["INT64", "Schema", "SchemaBuilder"]
