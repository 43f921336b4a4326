"""Parsing helpers shared by every route: the engine, JSON bodies, query values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from quart import current_app, request

from ..convert import INT64_MAX, INT64_MIN, structure
from ..errors import UnsupportedMediaType, ValidationFailed
from .body import parse_json

if TYPE_CHECKING:
    from ..engine import Engine

T = TypeVar("T")


def engine() -> Engine:
    return current_app.config["SVC_ENGINE"]


async def json_body(*, default: Any = None, allow_empty: bool = True) -> Any:
    """The parsed JSON body. Empty bodies give ``default`` (``{}`` unless told).

    A body sent under a content type other than JSON is refused (415): a web
    page can post ``text/plain`` or a form to any address without asking, and
    must not reach a route that acts on JSON. No content type at all is read
    as JSON (plain clients omit it; browsers always name one).
    """
    raw = await request.get_data(cache=True)
    if not raw or not raw.strip():
        if not allow_empty:
            raise ValidationFailed("a JSON request body is required", field="$")
        return {} if default is None else default
    content_type = request.headers.get("Content-Type")
    if content_type is not None and not is_json_media_type(content_type):
        raise UnsupportedMediaType(
            f"the request body must be sent as `application/json`, not `{content_type}`",
            field="Content-Type",
        )
    return parse_json(raw)


async def object_body() -> dict[str, Any]:
    body = await json_body()
    if not isinstance(body, dict):
        raise ValidationFailed("request body must be a JSON object", field="$")
    return body


async def parse_body(cls: type[T]) -> T:
    """The JSON body structured into the attrs class ``cls``."""
    return structure(cls, await json_body())


def is_json_media_type(content_type: str) -> bool:
    """``application/json`` or ``application/*+json``, parameters (``charset``) ignored."""
    mime = content_type.split(";", 1)[0].strip().lower()
    kind, _, subtype = mime.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def query_str(name: str, *aliases: str, default: str | None = None) -> str | None:
    for key in (name, *aliases):
        value = request.args.get(key)
        if value is not None and value != "":
            return value
    return default


def query_int(
    name: str,
    *aliases: str,
    default: int | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
    clamp: bool = False,
) -> int | None:
    raw = query_str(name, *aliases)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValidationFailed(f"query parameter `{name}` must be an integer", field=name) from None
    if not INT64_MIN <= value <= INT64_MAX:
        # Cursors and limits are bound to SQLite, whose integers are signed 64-bit.
        raise ValidationFailed(
            f"query parameter `{name}` is out of range: integers must fit in signed 64 bits",
            field=name,
        )
    if minimum is not None and value < minimum:
        if not clamp:
            raise ValidationFailed(
                f"query parameter `{name}` must be at least {minimum}", field=name
            )
        value = minimum
    if maximum is not None and value > maximum:
        if not clamp:
            raise ValidationFailed(
                f"query parameter `{name}` must be at most {maximum}", field=name
            )
        value = maximum
    return value


def query_bool(name: str, *aliases: str, default: bool = False) -> bool:
    raw = query_str(name, *aliases)
    if raw is None:
        return default
    lowered = raw.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValidationFailed(f"query parameter `{name}` must be a boolean", field=name)


def header(name: str) -> str | None:
    value = request.headers.get(name)
    return value.strip() if value and value.strip() else None
