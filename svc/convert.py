"""cattrs conversion between attrs records and JSON-shaped data.

Request bodies are structured into frozen attrs classes. Wire bodies accept
both camelCase and snake_case spellings of a field: declare the extra names in
the field's metadata with :func:`aliases` and they are folded onto the field
name before structuring. Errors come back as :class:`ValidationFailed` naming the
offending field path (``parts[1].type``), never as a 500.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, get_args, get_origin

import attrs
import cattrs
from cattrs.errors import (
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
    IterableValidationNote,
)
from cattrs.gen import make_dict_structure_fn

from .errors import ValidationFailed

T = TypeVar("T")

converter = cattrs.Converter(omit_if_default=False)
converter.register_structure_hook(Path, lambda v, _: Path(v))
converter.register_unstructure_hook(Path, str)


def _structure_strict_str(value: Any, _: type) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {_json_type(value)}")
    return value


def _structure_strict_bool(value: Any, _: type) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected a boolean, got {_json_type(value)}")
    return value


INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def _structure_strict_int(value: Any, _: type) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if not (isinstance(value, float) and value.is_integer()):
            raise TypeError(f"expected an integer, got {_json_type(value)}")
        value = int(value)
    # Every int field ends up in SQLite (or beside one), whose integers are
    # signed 64-bit: a larger value would be an OverflowError where it is bound.
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError("out of range: integers must fit in signed 64 bits")
    return value


def _structure_strict_float(value: Any, _: type) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {_json_type(value)}")
    return float(value)


def _structure_any_dict(value: Any, _: type) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {_json_type(value)}")
    return dict(value)


# JSON is not Python: "1" is not an int and 1 is not a string. cattrs' default
# coercions would silently accept both.
converter.register_structure_hook(str, _structure_strict_str)
converter.register_structure_hook(bool, _structure_strict_bool)
converter.register_structure_hook(int, _structure_strict_int)
converter.register_structure_hook(float, _structure_strict_float)


def _is_any_dict(t: Any) -> bool:
    return t is dict or (get_origin(t) is dict and get_args(t)[1:] == (Any,))


converter.register_structure_hook_func(_is_any_dict, _structure_any_dict)
converter.register_structure_hook_func(lambda t: t is Any, lambda v, _: v)


def _structure_strict_list(value: Any, tp: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected an array, got {_json_type(value)}")
    args = get_args(tp)
    item_type = args[0] if args else Any
    items: list[Any] = []
    errors: list[Exception] = []
    for index, item in enumerate(value):
        try:
            items.append(converter.structure(item, item_type))
        except Exception as exc:
            exc.add_note(
                IterableValidationNote(f"Structuring {tp} @ index {index}", index, item_type)
            )
            errors.append(exc)
    if errors:
        raise IterableValidationError(f"While structuring {tp!r}", errors, tp)
    return items


def _is_list(t: Any) -> bool:
    return t is list or get_origin(t) is list


converter.register_structure_hook_func(_is_list, _structure_strict_list)


def _attrs_structure_factory(cls: type) -> Any:
    generated: Any = make_dict_structure_fn(cls, converter)

    def structure_object(value: Any, tp: type) -> Any:
        if not isinstance(value, Mapping):
            raise TypeError(f"expected an object, got {_json_type(value)}")
        return generated(value, tp)

    return structure_object


converter.register_structure_hook_factory(attrs.has, _attrs_structure_factory)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


MAX_PATH_CHARS = 4096
MAX_PATH_COMPONENT_BYTES = 255


def check_path_text(value: str | None, *, field: str) -> str | None:
    """``value`` if it can name a file: no NUL, at most 4,096 characters, parts of 255 bytes.

    The operating system refuses anything else (``embedded null byte``,
    ``ENAMETOOLONG``) wherever the path is first used, far from the request.
    """
    if value is None:
        return None
    if "\x00" in value:
        raise ValidationFailed(f"`{field}` must not contain a NUL character", field=field)
    if len(value) > MAX_PATH_CHARS:
        raise ValidationFailed(f"`{field}` is longer than {MAX_PATH_CHARS} characters", field=field)
    if any(len(part.encode()) > MAX_PATH_COMPONENT_BYTES for part in re.split(r"[/\\]", value)):
        raise ValidationFailed(
            f"`{field}` has a name longer than {MAX_PATH_COMPONENT_BYTES} bytes", field=field
        )
    return value


def path_like(instance: Any, attribute: attrs.Attribute[Any], value: str | None) -> None:
    """An attrs validator for a field that names a file or a directory (see check_path_text)."""
    check_path_text(value, field=attribute.name)


def aliases(*names: str, **kwargs: Any) -> Any:
    """An attrs field accepting other spellings on the wire (``aliases("sessionID")``)."""
    metadata = dict(kwargs.pop("metadata", {}) or {})
    metadata["aliases"] = names
    return attrs.field(metadata=metadata, **kwargs)


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake_case(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


def fold_aliases(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """Rename alias keys (and camelCase spellings of snake fields) to field names, recursively."""
    if not attrs.has(cls):
        return dict(data)
    fields = {f.name: f for f in _resolved_fields(cls)}
    lookup: dict[str, str] = {}
    for name, f in fields.items():
        lookup[name] = name
        camel = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)
        lookup.setdefault(camel, name)
        for alias in f.metadata.get("aliases", ()):
            lookup.setdefault(alias, name)
    out: dict[str, Any] = {}
    for key, value in data.items():
        target = lookup.get(key, key)
        if target in out and key != target:
            continue  # the canonical spelling wins over an alias
        out[target] = _fold_value(fields[target].type if target in fields else None, value)
    return out


def _resolved_fields(cls: type) -> tuple[attrs.Attribute[Any], ...]:
    """``cls``'s fields with real types, not the strings of postponed annotations.

    Nested aliases are folded by the field's type. Under ``from __future__ import
    annotations`` that type stays a string until cattrs first structures the class, so
    the FIRST body of each class lost its nested aliases: ``{"model": {"providerID":
    ...}}`` became an empty model, and that session or prompt went to the default
    provider. attrs resolves a class once and remembers it.
    """
    try:
        attrs.resolve_types(cls)
    except NameError:
        pass  # a type named only in a local scope: folded shallowly, as before
    return attrs.fields(cls)


def _fold_value(tp: Any, value: Any) -> Any:
    if tp is None:
        return value
    inner = _unwrap_optional(tp)
    if attrs.has(inner) and isinstance(value, Mapping):
        return fold_aliases(inner, value)
    origin = get_origin(inner)
    if origin in (list, tuple) and isinstance(value, list):
        args = get_args(inner)
        if args and attrs.has(_unwrap_optional(args[0])):
            item_cls = _unwrap_optional(args[0])
            return [fold_aliases(item_cls, v) if isinstance(v, Mapping) else v for v in value]
    return value


def _unwrap_optional(tp: Any) -> Any:
    args = get_args(tp)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return tp


def structure(cls: type[T], data: Any, *, what: str = "request body") -> T:
    """Structure JSON-shaped ``data`` into ``cls`` or raise :class:`ValidationFailed`."""
    if attrs.has(cls):
        if not isinstance(data, Mapping):
            raise ValidationFailed(
                f"{what} must be a JSON object, got {_json_type(data)}", field="$"
            )
        data = fold_aliases(cls, data)
    try:
        return converter.structure(data, cls)
    except (ClassValidationError, IterableValidationError, ForbiddenExtraKeysError) as exc:
        leaf = _first_leaf(exc)
        if isinstance(leaf, ValidationFailed):
            # A field validator's own 400 (path_like): keep its message and code,
            # naming the field by its full path.
            leaf.extra["field"] = _join(_first_path(exc), leaf.extra.get("field"))
            raise leaf from None
        path, message = _first_error(exc)
        raise ValidationFailed(f"invalid `{path}`: {message}", field=path) from None
    except (TypeError, ValueError, KeyError) as exc:
        raise ValidationFailed(f"invalid {what}: {exc}", field="$") from None


def _first_error(exc: BaseException, path: str = "") -> tuple[str, str]:
    """Walk cattrs' exception groups to the first leaf, building a field path."""
    if isinstance(exc, ClassValidationError | IterableValidationError):
        with_notes, without_notes = exc.group_exceptions()
        for inner, note in with_notes:
            return _first_error(inner, path + _path_step(note))
        for inner in without_notes:
            return _first_error(inner, path)
    if isinstance(exc, KeyError):
        name = exc.args[0] if exc.args else "?"
        return path.lstrip(".") or str(name), "required field is missing"
    message = str(exc) or type(exc).__name__
    if isinstance(exc, ForbiddenExtraKeysError):
        message = f"unknown fields {sorted(exc.extra_fields)}"
    if isinstance(exc, ValueError) and not str(exc):
        message = "invalid value"
    return path.lstrip(".") or "$", message


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, ClassValidationError | IterableValidationError):
        with_notes, without_notes = exc.group_exceptions()
        exc = with_notes[0][0] if with_notes else without_notes[0]
    return exc


def _first_path(exc: BaseException, path: str = "") -> str:
    while isinstance(exc, ClassValidationError | IterableValidationError):
        with_notes, without_notes = exc.group_exceptions()
        if with_notes:
            exc, note = with_notes[0]
            path += _path_step(note)
        else:
            exc = without_notes[0]
    return path.lstrip(".")


def _join(path: str, field: Any) -> str:
    if not path:
        return str(field or "$")
    return f"{path}.{field}" if field and field != "$" else path


def _path_step(note: Any) -> str:
    name = getattr(note, "name", None)
    index = getattr(note, "index", None)
    if name is not None:
        return f".{name}"
    if index is not None:
        return f"[{index}]"
    return ""


def unstructure(value: Any) -> Any:
    return converter.unstructure(value)


def enum_values(cls: type[enum.Enum]) -> list[str]:
    return [str(m.value) for m in cls]


__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "MAX_PATH_CHARS",
    "aliases",
    "check_path_text",
    "converter",
    "enum_values",
    "fold_aliases",
    "path_like",
    "snake_case",
    "structure",
    "unstructure",
]
