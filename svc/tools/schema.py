"""Validate tool arguments against the tool's ``input_schema``.

Tool schemas are written by us (built-ins) or by MCP servers, and they only use
a small part of JSON Schema. This validator covers that part and names the
exact offending place (``args.todos[1].status``) so the model can fix its call:

* ``type`` (a name or a list of names; ``integer`` is a whole number, ``number``
  any number, and booleans are neither),
* ``properties``, ``required``, ``additionalProperties: false``,
* ``items`` (one schema for every element), ``minItems``/``maxItems``,
* ``enum``, ``minimum``/``maximum``, ``minLength``/``maxLength``.

Other keywords (``description``, ``default``, ``anyOf`` ...) are ignored, and
defaults are never injected: a tool reads its own defaults, so the arguments it
receives are exactly what the caller sent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ValidationFailed

_ARTICLED = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
}


def validate_args(schema: Mapping[str, Any], args: Any) -> dict[str, Any]:
    """Check ``args`` against ``schema``; return a plain-dict copy of them.

    Raises :class:`ValidationFailed` with ``field`` set to the path of the first
    problem (``args`` itself when it is not an object).
    """
    if not isinstance(args, Mapping):
        raise ValidationFailed(f"args must be a JSON object, not {_json_type(args)}", field="args")
    top = dict(schema)
    top.setdefault("type", "object")
    _check(top, args, "args")
    return _plain(args)


def _check(schema: Mapping[str, Any], value: Any, path: str) -> None:
    expected = schema.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else list(expected)
        if not any(_is_type(value, name) for name in names):
            raise ValidationFailed(
                f"{path} must be {_describe_types(names)}, not {_json_type(value)}", field=path
            )
    if "enum" in schema:
        choices = list(schema["enum"])
        if not any(_json_equal(value, choice) for choice in choices):
            listed = ", ".join(str(c) for c in choices)
            raise ValidationFailed(f"{path} must be one of {listed}", field=path)
    if _is_number(value):
        _check_range(schema, value, path)
    if isinstance(value, str):
        _check_length(schema, value, path)
    if isinstance(value, Mapping):
        _check_object(schema, value, path)
    elif _is_array(value):
        _check_array(schema, value, path)


def _check_object(schema: Mapping[str, Any], value: Mapping[str, Any], path: str) -> None:
    properties: Mapping[str, Any] = schema.get("properties") or {}
    for name in schema.get("required") or ():
        if name not in value:
            raise ValidationFailed(f"{path}.{name} is required", field=f"{path}.{name}")
    for name, item in value.items():
        sub = properties.get(name)
        if sub is None:
            if schema.get("additionalProperties") is False:
                raise ValidationFailed(
                    f"{path}.{name} is not an allowed property", field=f"{path}.{name}"
                )
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping):
                _check(extra, item, f"{path}.{name}")
            continue
        _check(sub, item, f"{path}.{name}")


def _check_array(schema: Mapping[str, Any], value: Sequence[Any], path: str) -> None:
    if "minItems" in schema and len(value) < schema["minItems"]:
        raise ValidationFailed(f"{path} needs at least {schema['minItems']} items", field=path)
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        raise ValidationFailed(f"{path} allows at most {schema['maxItems']} items", field=path)
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            _check(items, item, f"{path}[{index}]")


def _check_range(schema: Mapping[str, Any], value: float, path: str) -> None:
    if "minimum" in schema and value < schema["minimum"]:
        raise ValidationFailed(f"{path} must be >= {schema['minimum']}", field=path)
    if "maximum" in schema and value > schema["maximum"]:
        raise ValidationFailed(f"{path} must be <= {schema['maximum']}", field=path)


def _check_length(schema: Mapping[str, Any], value: str, path: str) -> None:
    if "minLength" in schema and len(value) < schema["minLength"]:
        what = (
            "must not be empty"
            if schema["minLength"] == 1
            else f"needs at least {schema['minLength']} characters"
        )
        raise ValidationFailed(f"{path} {what}", field=path)
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        raise ValidationFailed(
            f"{path} allows at most {schema['maxLength']} characters", field=path
        )


# ---------------------------------------------------------------- JSON types
def _is_number(value: Any) -> bool:
    # bool is an int subclass in Python, but true/false are not numbers in JSON.
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_array(value: Any) -> bool:
    return isinstance(value, list | tuple)


def _is_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, Mapping)
    if name == "array":
        return _is_array(value)
    if name == "string":
        return isinstance(value, str)
    if name == "integer":
        # JSON has one number type: 3.0 is an integer as far as a schema is concerned.
        return _is_number(value) and (
            isinstance(value, int) or (math.isfinite(value) and value.is_integer())
        )
    if name == "number":
        return _is_number(value) and math.isfinite(value)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    return True  # an unknown type name constrains nothing


def _json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return name
    return type(value).__name__


def _describe_types(names: Sequence[str]) -> str:
    return " or ".join(_ARTICLED.get(n, n) for n in names)


def _json_equal(a: Any, b: Any) -> bool:
    # Keep true == 1 from passing an enum check.
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return bool(a == b)


def _plain(value: Any) -> Any:
    """A deep copy made of dicts and lists, so a tool never mutates the caller's data."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if _is_array(value):
        return [_plain(v) for v in value]
    return value


__all__ = ["validate_args"]
