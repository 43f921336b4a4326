"""The one JSON body parser every route reads through: JSON in, or a 400 naming the problem.

``json.loads`` accepts documents the rest of the engine cannot hold, and each
used to surface far from the parser as a 500:

* nesting thousands deep overflows the C decoder's recursion (``RecursionError``),
  and anything shallower than that but deeper than a request needs still
  overflows the recursive code downstream (conversion, ``json.dumps``);
* an integer literal over 4,300 digits fails Python's int conversion
  (``ValueError``), and one outside signed 64 bits fails SQLite's
  (``OverflowError``) wherever it is bound;
* ``"\\ud800"`` (an unpaired surrogate escape, or one smuggled as raw bytes,
  which ``json.loads`` decodes with ``surrogatepass``) is a ``str`` that
  cannot be encoded as UTF-8, so SQLite, the event log and files refuse it
  (``UnicodeEncodeError``).

Each is a :class:`ValidationFailed` subclass with its own stable code and the
JSON path of the offending value in ``field`` (``$`` for the body itself).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..convert import INT64_MAX, INT64_MIN
from ..errors import ValidationFailed

MAX_DEPTH = 64
"""Objects and arrays nested deeper than this are refused (a request needs a handful)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonTooDeep(ValidationFailed):
    """The request body nests objects or arrays too deeply."""

    code = "JSON_TOO_DEEP"


class JsonNumberOutOfRange(ValidationFailed):
    """An integer in the request body does not fit in signed 64 bits."""

    code = "JSON_NUMBER_OUT_OF_RANGE"


class JsonInvalidString(ValidationFailed):
    """A string in the request body holds an unpaired UTF-16 surrogate."""

    code = "JSON_INVALID_STRING"


def parse_json(raw: bytes | str) -> Any:
    """``raw`` decoded as JSON and checked (see the module docstring), or a 400."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise JsonTooDeep(
            f"request body nests deeper than {MAX_DEPTH} levels", field="$", maxDepth=MAX_DEPTH
        ) from None
    except json.JSONDecodeError as exc:
        raise ValidationFailed(
            f"request body is not valid JSON at line {exc.lineno}, column {exc.colno}", field="$"
        ) from None
    except UnicodeDecodeError:
        raise ValidationFailed("request body is not valid JSON", field="$") from None
    except ValueError:
        # The only other ValueError json.loads raises: an integer literal past
        # Python's digit limit for int conversion (sys.get_int_max_str_digits).
        raise JsonNumberOutOfRange(
            "an integer in the request body has too many digits; "
            "integers must fit in signed 64 bits",
            field="$",
        ) from None
    if _may_break_limits(raw):
        check_value(value)
    return value


# What only a body that breaks a limit can contain: an escape or the UTF-8
# bytes of a surrogate, a run of 19 digits (2^63 has 19), enough brackets to
# nest that deep. Most bodies have none, and skip the walk.
_SUSPECT = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]|[0-9]{19}")


def _may_break_limits(raw: bytes | str) -> bool:
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if json.detect_encoding(data) != "utf-8":
        return True  # UTF-16 or -32: the byte patterns below do not apply
    return data.count(b"[") + data.count(b"{") >= MAX_DEPTH or _SUSPECT.search(data) is not None


def check_value(value: Any) -> None:
    """Walk a decoded document (iteratively: its depth is what is being checked)."""
    stack: list[tuple[Any, str, int]] = [(value, "$", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            _check_string(item, path)
        elif isinstance(item, bool) or item is None or isinstance(item, float):
            continue
        elif isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                raise JsonNumberOutOfRange(
                    f"`{_field(path)}` is out of range: integers must fit in signed 64 bits",
                    field=_field(path),
                )
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise JsonTooDeep(
                    f"request body nests deeper than {MAX_DEPTH} levels at `{_field(path)}`",
                    field=_field(path),
                    maxDepth=MAX_DEPTH,
                )
            if isinstance(item, dict):
                for key, child in item.items():
                    child_path = f"{path}.{key}"
                    _check_string(key, child_path)
                    stack.append((child, child_path, depth + 1))
            else:
                stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item))


def _check_string(text: str, path: str) -> None:
    if _SURROGATE.search(text) is not None:
        field = _field(path).encode("utf-8", "backslashreplace").decode()
        raise JsonInvalidString(
            f"`{field}` holds an unpaired UTF-16 surrogate; strings must be valid Unicode",
            field=field,
        )


def _field(path: str) -> str:
    """``$.a.b[0]`` as the field name errors use elsewhere (``a.b[0]``); the body is ``$``."""
    return path[2:] if path.startswith("$.") else path


__all__ = [
    "MAX_DEPTH",
    "JsonInvalidString",
    "JsonNumberOutOfRange",
    "JsonTooDeep",
    "check_value",
    "parse_json",
]
