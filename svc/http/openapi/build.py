"""The OpenAPI 3.1 document of the running app, built from its URL map.

Paths, methods and path parameters come from the URL map itself, so the
document cannot list a route the engine does not serve. What each operation
takes and answers comes from its :class:`~.registry.Op` (``areas/``); who may
call it comes from the route policy (``svc/http/policy.py``). Built once, on
the first request for it: start-up pays nothing.
"""

from __future__ import annotations

import re
from typing import Any

from quart import Quart

from ..._version import __version__
from ...convert import INT64_MAX
from ..auth import INTAKE_KEY_HEADER
from ..policy import Auth, policy_of
from .records import RECORDS
from .registry import Op, Record, Schema, load_operations, resolve
from .schema import SchemaBuilder

IGNORED_METHODS = frozenset({"HEAD", "OPTIONS"})

ERROR_BODY: Schema = {
    "type": "object",
    "description": "The shared error body: every 4xx and 5xx answer has this shape.",
    "properties": {
        "error": {"type": "string", "description": "what was wrong and what to do"},
        "code": {"type": "string", "description": "a stable machine-readable code"},
        "retryable": {"type": "boolean"},
        "field": {"type": "string", "description": "the offending field, when there is one"},
    },
    "required": ["error", "code", "retryable"],
}

_CONVERTER = re.compile(r"<(?:(?P<conv>[a-z]+)(?:\([^)]*\))?:)?(?P<name>\w+)>")


class UndescribedRoute(LookupError):
    """A view function without an entry in ``svc/http/openapi/areas``."""


def operation_key(app: Quart, endpoint: str) -> str:
    """``"<blueprint>.<view function name>"``: one key for every path a view serves."""
    view = app.view_functions[endpoint]
    return f"{endpoint.split('.', 1)[0]}.{view.__name__}"


def openapi_path(rule: str) -> str:
    return _CONVERTER.sub(lambda m: "{" + m.group("name") + "}", rule)


def build_document(app: Quart, *, strict: bool = True) -> dict[str, Any]:
    """The document. ``strict``: an undescribed route raises rather than being left out."""
    operations = load_operations()
    schemas = SchemaBuilder()
    paths: dict[str, dict[str, Any]] = {}
    used_ids: set[str] = set()
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if "." not in rule.endpoint:
            # Not in a blueprint: the embedded web application's pages and files
            # (svc/webui/embed.py), served beside the API but no part of it.
            continue
        key = operation_key(app, rule.endpoint)
        described = operations.get(key)
        if described is None:
            if strict:
                raise UndescribedRoute(
                    f"{key} ({rule.rule}) has no entry in svc/http/openapi/areas"
                )
            continue
        item = paths.setdefault(openapi_path(rule.rule), {})
        params = _path_parameters(rule.rule)
        for method in sorted((rule.methods or set()) - IGNORED_METHODS):
            operation_id = _unique(f"{key}.{method.lower()}", used_ids)
            auth = policy_of(method, rule.rule)
            item[method.lower()] = _operation(
                described, key, operation_id, params, auth, schemas, method
            )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "svc-engine HTTP API",
            "version": __version__,
            "description": (
                "Every route of the engine. Requests carry the API token in "
                "`X-Agent-Token`, `X-Svc-Token` or `Authorization: Bearer` unless the "
                "operation says it is public. Errors share one body (`ErrorBody`)."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": {"ErrorBody": ERROR_BODY, **schemas.components},
            "securitySchemes": {
                "agentToken": {"type": "apiKey", "in": "header", "name": "X-Agent-Token"},
                "svcToken": {"type": "apiKey", "in": "header", "name": "X-Svc-Token"},
                "bearer": {"type": "http", "scheme": "bearer"},
                "intakeKey": {"type": "apiKey", "in": "header", "name": INTAKE_KEY_HEADER},
            },
            "responses": {
                "Error": {
                    "description": "the request was refused (the body says why)",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
                    },
                }
            },
        },
        "security": [{"agentToken": []}, {"svcToken": []}, {"bearer": []}],
    }


def _operation(
    described: Op,
    key: str,
    operation_id: str,
    params: list[dict[str, Any]],
    auth: Auth | None,
    schemas: SchemaBuilder,
    method: str,
) -> dict[str, Any]:
    blueprint, view = key.split(".", 1)
    result: dict[str, Any] = {
        "operationId": operation_id,
        "summary": described.summary or view.replace("_", " ").capitalize(),
        "tags": list(described.tags) or [blueprint],
    }
    if auth is not None:
        result["x-auth"] = auth.value
        if auth is Auth.PUBLIC:
            result["security"] = []
        elif auth is Auth.INTAKE_KEY:
            # A project's intake key, in its header or as the bearer credential; the
            # engine token is no key here.
            result["security"] = [{"intakeKey": []}, {"bearer": []}]
    parameters = params + [
        {"name": q.name, "in": "query", "required": False, "schema": q.schema}
        | ({"description": q.description} if q.description else {})
        for q in described.query
    ]
    if parameters:
        result["parameters"] = parameters
    if described.body is not None:
        result["requestBody"] = {
            "required": described.body_required,
            "content": {"application/json": {"schema": _schema(described.body, schemas)}},
        }
    elif method in ("POST", "PUT", "PATCH"):
        # Routes that read no body ignore one; say so rather than leave it unsaid.
        result["requestBody"] = {
            "required": False,
            "description": "ignored",
            "content": {"application/json": {"schema": {}}},
        }
    result["responses"] = _responses(described, schemas)
    return result


def _responses(described: Op, schemas: SchemaBuilder) -> dict[str, Any]:
    content: dict[str, Any] = {}
    if described.stream is not None:
        content["text/event-stream"] = {
            "schema": {"type": "string"},
            "x-event-types": list(described.stream),
        }
    if described.media is not None:
        content[described.media] = {"schema": {"type": "string"}}
    elif described.stream is None or described.stream_or_json:
        returns = _schema(described.returns, schemas) if described.returns is not None else {}
        content["application/json"] = {"schema": returns}
    success: dict[str, Any] = {"description": _stream_description(described)}
    if described.status != 204:
        success["content"] = content
    responses: dict[str, Any] = {str(described.status): success}
    for status in described.also:
        responses[str(status)] = {
            "description": "see the first success status",
            **({"content": content} if status != 204 else {}),
        }
    responses["4XX"] = {"$ref": "#/components/responses/Error"}
    responses["5XX"] = {"$ref": "#/components/responses/Error"}
    return responses


def _stream_description(described: Op) -> str:
    if described.stream is None:
        return "success"
    types = ", ".join(f"`{t}`" for t in described.stream)
    return (
        "a server-sent event stream (`id: <seq>`, `data: <event JSON>`, keep-alive comments; "
        f"resume with `Last-Event-ID`) carrying {types}"
    )


def _schema(ref: str | tuple[str, ...] | Record | Schema, schemas: SchemaBuilder) -> Schema:
    if isinstance(ref, Record):
        # A record may refer to others by name: all of them join the components once.
        for record in RECORDS:
            schemas.components.setdefault(record.name, record.schema)
        return {"$ref": f"#/components/schemas/{ref.name}"}
    if isinstance(ref, str):
        return schemas.ref(resolve(ref))
    if isinstance(ref, tuple):
        return {"anyOf": [schemas.ref(resolve(r)) for r in ref]}
    return ref


def _path_parameters(rule: str) -> list[dict[str, Any]]:
    params = []
    for match in _CONVERTER.finditer(rule):
        conv = match.group("conv")
        schema: Schema = (
            {"type": "integer", "minimum": 0, "maximum": INT64_MAX}
            if conv == "int"
            else {"type": "string"}
        )
        if conv == "path":
            schema["description"] = "may contain `/`"
        params.append(
            {"name": match.group("name"), "in": "path", "required": True, "schema": schema}
        )
    return params


def _unique(candidate: str, used: set[str]) -> str:
    name, n = candidate, 2
    while name in used:
        name = f"{candidate}{n}"
        n += 1
    used.add(name)
    return name


__all__ = ["UndescribedRoute", "build_document", "openapi_path", "operation_key"]
