"""Argument repair before ``tools/call``: keys that drifted from the tool's schema.

Models often send ``listId`` for ``list_id``, ``task-title`` for ``task_title``,
or ``name`` where the schema requires ``task_title``. Before a call goes out:

1. a schema property missing from the arguments takes the value of an argument
   whose key is the same once case and separators are ignored
   (``taskTitle``, ``task-title``, ``TASK_TITLE`` -> ``task_title``);
2. a *required* property still missing is recovered from an alias:
   ``name``/``title``/``task_name`` for a ``..title..`` property, ``<base>`` or
   ``<base>id`` for ``<base>_id``;
3. when the schema forbids additional properties, the drifted key that supplied
   the value is dropped (the server would reject it); otherwise it stays;
4. engine-internal keys (``__session_id`` ...) never leave the engine.

Nested objects whose schema declares properties are repaired the same way.
Values are never converted: only keys move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def normalize_key(key: str) -> str:
    """``task_title``, ``taskTitle``, ``Task-Title`` -> ``tasktitle``."""
    return "".join(ch for ch in key.lower() if ch.isascii() and ch.isalnum())


def repair_arguments(schema: Mapping[str, Any] | None, args: Mapping[str, Any]) -> dict[str, Any]:
    """A repaired copy of ``args`` for ``schema`` (see the module docstring)."""
    cleaned = {k: v for k, v in args.items() if not (isinstance(k, str) and k.startswith("__"))}
    if not isinstance(schema, Mapping):
        return cleaned
    return _repair_object(schema, cleaned)


def _repair_object(schema: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return args
    out = dict(args)
    consumed: set[str] = set()
    declared = set(properties)

    def spare_keys() -> list[str]:
        return [k for k in out if k not in declared and k not in consumed]

    for name in properties:
        if name in out:
            continue
        target = normalize_key(name)
        source = next((k for k in spare_keys() if normalize_key(k) == target), None)
        if source is not None:
            out[name] = out[source]
            consumed.add(source)

    for name in schema.get("required") or ():
        if not isinstance(name, str) or name in out:
            continue
        wanted = [normalize_key(c) for c in _aliases(name)]
        source = next((k for c in wanted for k in spare_keys() if normalize_key(k) == c), None)
        if source is not None:
            out[name] = out[source]
            consumed.add(source)

    if schema.get("additionalProperties") is False:
        for key in consumed:
            out.pop(key, None)

    for name, sub in properties.items():
        if isinstance(sub, Mapping) and name in out:
            out[name] = _repair_value(sub, out[name])
    return out


def _repair_value(schema: Mapping[str, Any], value: Any) -> Any:
    if isinstance(value, Mapping):
        return _repair_object(schema, dict(value))
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, Mapping):
        return [_repair_value(items, item) for item in value]
    return value


def _aliases(name: str) -> list[str]:
    lowered = name.lower()
    candidates = [name, lowered, lowered.replace("_", "")]
    if "title" in lowered:
        candidates += ["name", "title", "task_name", "taskname"]
    if lowered.endswith("_id") and len(lowered) > 3:
        base = lowered[:-3]
        candidates += [base, f"{base}id", f"{base}_id"]
    return candidates


__all__ = ["normalize_key", "repair_arguments"]
