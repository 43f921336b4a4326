"""What the document says about each route beyond what the URL map knows.

The URL map gives paths, methods and path parameters. Each area module under
``svc/http/openapi/areas/`` adds, per view function, an :class:`Op`: its
request body (an attrs class, named ``"module:Class"`` so nothing is imported
until the document is built), its success status and body, its query
parameters, and for streams the event types they carry. Describing a route is
one line (``"list_things": op(returns=ARRAY)``); a view function with no entry
fails ``tests/svc/http/test_openapi.py``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

import attrs

Schema = dict[str, Any]

OBJECT: Schema = {"type": "object"}
ARRAY: Schema = {"type": "array"}
ANY_BODY: Schema = {"type": "object", "description": "a JSON object checked by the service"}


@attrs.frozen
class Record:
    """A named response shape: a component of the document, referred to by ``$ref``.

    Response bodies are built by hand (``to_wire``), not unstructured from one
    class, so their schemas are written here beside the routes, from the wire
    shapes the routes answer and the fields clients read; the fuzz run checks
    every 2xx answer against them.
    """

    name: str
    schema: Schema


def ref(name: str) -> Schema:
    """A reference to the record component ``name``."""
    return {"$ref": f"#/components/schemas/{name}"}


@attrs.frozen
class Query:
    """A query parameter."""

    name: str
    schema: Schema = attrs.field(factory=lambda: {"type": "string"})
    description: str | None = None


@attrs.frozen
class Op:
    """One operation's description (every path and method its view function serves)."""

    summary: str | None = None
    """Defaults to the view's docstring, else its name in words."""
    body: str | tuple[str, ...] | Schema | None = None
    """``"module:Class"`` of the attrs class the body is structured into (a tuple: one
    of several), or a schema."""
    body_required: bool = False
    returns: str | Record | Schema | None = None
    """The success body: ``"module:Class"``, a named record, a schema, or None for any JSON."""
    status: int = 200
    also: tuple[int, ...] = ()
    """Other success statuses (a replay answered 200 beside a 201, a pending 202)."""
    stream: tuple[str, ...] | None = None
    """Event types of a ``text/event-stream`` answer."""
    stream_or_json: bool = False
    """The stream only for ``Accept: text/event-stream``; JSON otherwise."""
    query: tuple[Query, ...] = ()
    tags: tuple[str, ...] = ()
    media: str | None = None
    """The success body's media type when it is text other than JSON (a page, a script,
    the metrics exposition); errors are still the JSON error body."""


def op(
    summary: str | None = None,
    *,
    body: str | tuple[str, ...] | Schema | None = None,
    body_required: bool = False,
    returns: str | Record | Schema | None = None,
    status: int = 200,
    also: tuple[int, ...] = (),
    stream: tuple[str, ...] | None = None,
    stream_or_json: bool = False,
    query: tuple[Query | str, ...] = (),
    media: str | None = None,
) -> Op:
    return Op(
        summary=summary,
        body=body,
        body_required=body_required,
        returns=returns,
        status=status,
        also=also,
        stream=stream,
        stream_or_json=stream_or_json,
        query=tuple(Query(q) if isinstance(q, str) else q for q in query),
        media=media,
    )


def q_int(name: str, description: str | None = None) -> Query:
    return Query(name, {"type": "integer"}, description)


def q_bool(name: str, description: str | None = None) -> Query:
    return Query(name, {"type": "boolean"}, description)


def load_operations() -> dict[str, Op]:
    """Every area's operations, keyed ``"<blueprint>.<view function name>"``."""
    from . import areas

    found: dict[str, Op] = {}
    for info in pkgutil.iter_modules(areas.__path__):
        module = importlib.import_module(f"{areas.__name__}.{info.name}")
        blueprint: str = getattr(module, "BLUEPRINT", info.name)
        operations: Mapping[str, Op] = module.OPERATIONS
        for name, operation in operations.items():
            found[f"{blueprint}.{name}"] = operation
    return found


def resolve(ref: str) -> Any:
    """``"package.module:Name"`` -> the object."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "ANY_BODY",
    "ARRAY",
    "OBJECT",
    "Op",
    "Query",
    "Record",
    "load_operations",
    "op",
    "ref",
    "resolve",
]
