"""Property-based requests from the OpenAPI document against a live engine, and their checks.

Used by the bounded run in the suite (``tests/svc/http/test_fuzz_api.py``) and
the long run (``tests/benchmarks/fuzz_api.py``). Hypothesis draws each case
from the operation's documented request: path parameters (known ids or any
text), query values, and a body that is one of

* a body generated from the documented schema (:func:`from_schema`),
* an object with the documented field names and values of any JSON type,
* any JSON value at all,
* one of the bodies a new user's fuzzer sent (nesting 10,000 deep, an integer
  of 5,000 digits, 2^63, unpaired surrogates, NUL and over-long paths).

Every answer is checked: no 5xx; every 4xx in the shared error shape with a
stable code; a 2xx status the document lists, with a JSON body that matches
the documented schema. The calls are synchronous (run them in a worker
thread while the engine serves on the Trio loop).
"""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

import attrs
import httpx
import jsonschema
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st

HTTP_METHODS = ("get", "put", "post", "delete", "patch")
STABLE_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]{1,80}$")

EVIL_BODIES: list[bytes] = [
    b'{"title": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    b'{"n": ' + b"9" * 5_000 + b"}",
    json.dumps({"n": 2**63, "version": 2**63, "limit": -(2**63) - 1}).encode(),
    b'{"title": "\\ud800", "name": "x\\udfff"}',
    b'{"\\udc00": 1}',
    json.dumps({"path": "a\x00b", "directory": "a\x00b", "template_id": "a\x00b"}).encode(),
    json.dumps({"path": "x" * 5_000, "directory": "y" * 5_000, "templateID": "z" * 300}).encode(),
    b"[]",
    b'"text"',
    b"null",
    b"{not json",
]

# Operations whose bodies reach the host beyond the state directory (a memory
# import reads any path it is given): only the malformed bodies are sent, never
# a generated one that could name "/".
HOST_EFFECT_OPERATIONS = frozenset({"memory.import_memory.post"})

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


@attrs.frozen
class Operation:
    operation_id: str
    method: str
    path: str
    parameters: tuple[dict[str, Any], ...]
    body_schema: dict[str, Any] | None
    responses: dict[str, Any]
    stream: bool


@attrs.frozen
class Case:
    path: str
    query: dict[str, str]
    body: bytes | None


@attrs.define
class Report:
    cases: int = 0
    statuses: Counter[int] = attrs.field(factory=Counter)
    failures: list[str] = attrs.field(factory=list)
    per_operation: Counter[str] = attrs.field(factory=Counter)

    def add_failure(self, operation: Operation, case: Case, problem: str) -> None:
        body = (case.body or b"")[:200]
        self.failures.append(
            f"{operation.method.upper()} {case.path} {case.query or ''} {body!r}: {problem}"
        )


def inline(schema: Any, components: dict[str, Any], seen: frozenset[str] = frozenset()) -> Any:
    """``schema`` with every local ``$ref`` replaced by its target (a cycle becomes ``{}``)."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/"):
            _, _, kind, name = ref.split("/", 3)
            if ref in seen:
                return {}
            return inline(components[kind][name], components, seen | {ref})
        return {k: inline(v, components, seen) for k, v in schema.items()}
    if isinstance(schema, list):
        return [inline(v, components, seen) for v in schema]
    return schema


def operations(
    document: dict[str, Any], *, skip_prefixes: Iterable[str] = ("/api/",)
) -> list[Operation]:
    """Every operation of the document (the ``/api`` mirror of ``/session`` only once)."""
    components = document["components"]
    found: list[Operation] = []
    for path, item in document["paths"].items():
        if any(path.startswith(prefix) for prefix in skip_prefixes):
            continue
        for method in HTTP_METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            responses = inline(operation["responses"], components)
            stream = any("text/event-stream" in r.get("content", {}) for r in responses.values())
            found.append(
                Operation(
                    operation_id=operation["operationId"],
                    method=method,
                    path=path,
                    parameters=tuple(operation.get("parameters", ())),
                    body_schema=inline(body["schema"], components) if body else None,
                    responses=responses,
                    stream=stream,
                )
            )
    return found


def _text_id() -> st.SearchStrategy[str]:
    return st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="/?#%\x00"),
        min_size=1,
        max_size=24,
    ).filter(lambda s: s not in (".", ".."))


def _parameter(param: dict[str, Any], known: dict[str, list[str]]) -> st.SearchStrategy[str]:
    schema = param.get("schema", {})
    if schema.get("type") == "integer":
        return st.integers(min_value=-5, max_value=2**64).map(str)
    if schema.get("type") == "boolean":
        return st.sampled_from(["true", "false", "maybe"])
    ids = known.get(param["name"], [])
    return st.sampled_from(ids) | _text_id() if ids else _text_id()


def _body(operation: Operation) -> st.SearchStrategy[bytes | None]:
    evil = st.sampled_from(EVIL_BODIES)
    if operation.method not in ("post", "put", "patch"):
        return st.none()
    if operation.operation_id in HOST_EFFECT_OPERATIONS:
        return evil
    schema = operation.body_schema or {}
    options: list[st.SearchStrategy[bytes | None]] = [
        evil,
        st.none(),
        JSON_VALUES.map(_dump),
    ]
    names = _property_names(schema)
    if names:
        options.append(
            st.dictionaries(st.sampled_from(names), JSON_VALUES, max_size=len(names)).map(_dump)
        )
    if schema:
        options.append(from_schema(schema).map(_dump))
    return st.one_of(options)


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of the JSON Schema subset the document uses (``svc/http/openapi/schema.py``).

    Written here rather than taken from hypothesis-jsonschema, whose last release
    (0.23.1) no longer runs on current Hypothesis. Values a keyword this does not
    know would restrict may fall outside the schema; the engine must answer those
    with a 4xx all the same.
    """
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([from_schema(option) for option in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind == "string":
        return st.text(max_size=min(schema.get("maxLength", 40), 40))
    if kind == "array":
        items = schema.get("items")
        return st.lists(from_schema(items) if items else JSON_VALUES, max_size=3)
    if kind == "object":
        properties = schema.get("properties", {})
        if not properties:
            return st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=3)
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {name: from_schema(sub) for name, sub in properties.items() if name in required},
            optional={
                name: from_schema(sub) for name, sub in properties.items() if name not in required
            },
        )
    return JSON_VALUES


def _property_names(schema: dict[str, Any]) -> list[str]:
    names: set[str] = set()
    for option in [schema, *schema.get("anyOf", [])]:
        names.update(option.get("properties", {}))
    return sorted(names)


def _dump(value: Any) -> bytes:
    return json.dumps(value).encode()


def case_strategy(operation: Operation, known: dict[str, list[str]]) -> st.SearchStrategy[Case]:
    path_params = [p for p in operation.parameters if p.get("in") == "path"]
    query_params = [p for p in operation.parameters if p.get("in") == "query"]

    @st.composite
    def build(draw: Callable[..., Any]) -> Case:
        path = operation.path
        for param in path_params:
            value = draw(_parameter(param, known))
            path = path.replace("{" + param["name"] + "}", quote(value, safe=""))
        query = {}
        for param in query_params:
            if draw(st.booleans()):
                query[param["name"]] = draw(_parameter(param, {}) | st.text(max_size=10))
        return Case(path=path, query=query, body=draw(_body(operation)))

    return build()


def check(operation: Operation, case: Case, response: httpx.Response, report: Report) -> None:
    status = response.status_code
    report.statuses[status] += 1
    if status >= 500:
        report.add_failure(operation, case, f"{status}: {response.text[:300]}")
        return
    content_type = response.headers.get("content-type", "")
    if 400 <= status < 500:
        try:
            body = response.json()
        except ValueError:
            report.add_failure(operation, case, f"{status} without a JSON error body")
            return
        error = inline(operation.responses["4XX"], {})
        schema = error.get("content", {}).get("application/json", {}).get("schema", {})
        problems = list(jsonschema.Draft202012Validator(schema).iter_errors(body))
        if problems:
            report.add_failure(operation, case, f"{status} error body: {problems[0].message}")
        elif not STABLE_CODE.match(str(body.get("code"))):
            report.add_failure(operation, case, f"{status} code is not stable: {body['code']!r}")
        return
    documented = operation.responses.get(str(status))
    if documented is None:
        report.add_failure(operation, case, f"undocumented status {status}")
        return
    media = content_type.split(";")[0].strip().lower()
    described = documented.get("content", {})
    if media and media not in described:
        report.add_failure(operation, case, f"{status} is {media}, documented as {[*described]}")
        return
    if media != "application/json":
        return
    schema = described.get("application/json", {}).get("schema")
    if schema is None:
        return
    problems = list(jsonschema.Draft202012Validator(schema).iter_errors(response.json()))
    if problems:
        first = problems[0]
        where = "/".join(str(p) for p in first.absolute_path) or "$"
        report.add_failure(
            operation, case, f"{status} body violates its schema at {where}: {first.message[:200]}"
        )


def send(client: httpx.Client, operation: Operation, case: Case) -> httpx.Response:
    headers = {"Content-Type": "application/json"} if case.body is not None else {}
    request = client.build_request(
        operation.method.upper(), case.path, params=case.query, content=case.body, headers=headers
    )
    response = client.send(request, stream=True)
    try:
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            response.read()
    finally:
        response.close()
    return response


def acts_on_the_engine(operation: Operation) -> bool:
    """False for routes that act on the host itself (installing the browser, launching it
    for a smoke test): the reference answers their failures (no browser here) 500 by
    design. Their auth is covered by tests/svc/http/test_route_policy.py, their behaviour
    by tests/svc/browser."""
    from svc.http.openapi import openapi_path
    from svc.http.policy import ROUTE_POLICY, Auth

    host_effects = {
        (method.lower(), openapi_path(rule))
        for (method, rule), auth in ROUTE_POLICY.items()
        if auth is Auth.LOOPBACK_HOST_EFFECT
    }
    return (operation.method, operation.path) not in host_effects


def fuzz(
    client: httpx.Client,
    document: dict[str, Any],
    *,
    examples: int,
    known: dict[str, list[str]] | None = None,
    seed: int | None = 0,
    only: Callable[[Operation], bool] = lambda _: True,
) -> Report:
    """``examples`` cases per operation; deterministic when ``seed`` is not None."""
    report = Report()
    for operation in operations(document):
        if not only(operation):
            continue
        _fuzz_operation(client, operation, report, examples, known or {}, seed)
    return report


def _fuzz_operation(
    client: httpx.Client,
    operation: Operation,
    report: Report,
    examples: int,
    known: dict[str, list[str]],
    seed: int | None,
) -> None:
    # No shrinking: a failure is recorded with its case and the run goes on.
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case_strategy(operation, known))
    def run(case: Case) -> None:
        report.cases += 1
        report.per_operation[operation.operation_id] += 1
        check(operation, case, send(client, operation, case), report)

    if seed is not None:
        # One fixed seed per operation: the same cases on every run.
        run = seeded(seed + zlib.crc32(operation.operation_id.encode()))(run)
    run()


__all__ = [
    "EVIL_BODIES",
    "Case",
    "Operation",
    "Report",
    "acts_on_the_engine",
    "check",
    "fuzz",
    "operations",
    "send",
]
