"""The route policy inventory matches the URL map, and the gate enforces it on every route.

A route without a row in ``svc/http/policy.py`` fails here, and so does a row
for a route that is gone. Then every route is called with no token, a wrong
token, and the right token in each accepted header.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from quart import Quart

import svc
from svc import Settings
from svc.http.app import create_app
from svc.http.auth import PUBLIC_PATTERNS, PUBLIC_ROUTES, is_public
from svc.http.policy import ROUTE_POLICY, Auth
from svc.http.routes.docs import ASSETS

TOKEN = "policy-test-token"
ACCEPTED = {
    "x-agent-token": {"X-Agent-Token": TOKEN},
    "x-svc-token": {"X-Svc-Token": TOKEN},
    "bearer": {"Authorization": f"Bearer {TOKEN}"},
}
WRONG = [
    {"X-Agent-Token": "wrong"},
    {"X-Svc-Token": "wrong"},
    {"Authorization": "Bearer wrong"},
]
# Classes whose callers present no API token at all.
TOKENLESS = {Auth.PUBLIC, Auth.SIGNED_WEBHOOK}
# Bodies that take a route past its input checks to the check this test is about, with no
# effect: the intake route reaches its key check (a project, no key: refused).
BODIES: dict[tuple[str, str], Any] = {
    ("POST", "/incident-monitor/intake/report"): {"project_id": "policy-project", "report": {}},
}
# Routes with effects on the host (installing, launching a browser). Called with the right
# token, they also name another tenant, so the route refuses (403, before any effect) after
# the gate let the token through: that refusal is the auth outcome asserted.
HOST_EFFECT_REFUSAL = (403, "browser_host_effect_forbidden")
OTHER_TENANT = {"x-svc-org-id": "policy-other-org"}


class _NoEngine:
    # The URL map needs no engine, only settings (the body cap, the web UI flag).
    settings = Settings.load({}, environ={})


@pytest.fixture(scope="module")
def app() -> Quart:
    return create_app(_NoEngine())  # type: ignore[arg-type]  # the URL map needs no engine


def url_map_routes(app: Quart) -> set[tuple[str, str]]:
    return {
        (method, rule.rule)
        for rule in app.url_map.iter_rules()
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }


def test_every_route_has_a_policy(app: Quart) -> None:
    missing = url_map_routes(app) - set(ROUTE_POLICY)
    assert not missing, (
        f"add a row for each of these to ROUTE_POLICY in svc/http/policy.py: {sorted(missing)}"
    )


def test_every_policy_row_is_a_route(app: Quart) -> None:
    stale = set(ROUTE_POLICY) - url_map_routes(app)
    assert not stale, f"policy rows for routes that no longer exist: {sorted(stale)}"


def test_public_rows_are_exactly_what_the_gate_lets_through() -> None:
    public_paths = {path for method, path in PUBLIC_ROUTES if method == "GET"}
    expected: set[str] = set()
    for (method, rule), auth in ROUTE_POLICY.items():
        if auth is Auth.PUBLIC:
            assert method == "GET"
            if rule == "/doc/<asset>":
                expected |= {f"/doc/{name}" for name in ASSETS}
            elif "<" in rule:
                # A variable route whose handler checks its caller: matched by a pattern.
                assert is_public(method, concrete(rule)), rule
                assert not is_public(method, concrete(rule) + "/x"), rule
            else:
                expected.add(rule)
    assert public_paths == expected
    assert {path for method, path in PUBLIC_ROUTES if method == "HEAD"} == expected
    patterned = [
        rule
        for (_, rule), auth in ROUTE_POLICY.items()
        if "<" in rule and auth in TOKENLESS and rule != "/doc/<asset>"
    ]
    assert len(patterned) == len(PUBLIC_PATTERNS)


def concrete(rule: str) -> str:
    """A path that matches ``rule``: every variable filled in (``1`` for ints)."""
    path = re.sub(r"<int:\w+>", "1", rule)
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: f"policy-{m.group(1)}", path)
    return path.replace("/doc/policy-asset", "/doc/doc.js")


@pytest.fixture
async def token_client(make_settings: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with (
        svc.open_engine(make_settings(api_token=TOKEN), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as client,
    ):
        yield client


async def call(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    headers: dict[str, str],
    body: Any = None,
) -> Any:
    """Status and error code; the body of a stream is not waited for (only its head)."""
    async with client.stream(method, path, headers=headers, json=body) as response:
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return response.status_code, None
        await response.aread()
        try:
            code = response.json().get("code") if response.content else None
        except (ValueError, AttributeError):
            code = None
        return response.status_code, code


async def test_every_route_refuses_a_missing_or_wrong_token_and_accepts_each_header(
    token_client: httpx.AsyncClient,
) -> None:
    failures: list[str] = []
    rows = sorted(ROUTE_POLICY.items(), key=lambda row: (row[0][1], row[0][0]))
    for index, ((method, rule), auth) in enumerate(rows):
        path = concrete(rule)
        body = BODIES.get((method, rule))
        status, code = await call(token_client, method, path, {}, body)
        if auth in TOKENLESS:
            if code == "AUTH_REQUIRED":
                failures.append(f"{method} {rule} ({auth.value}) asked for a token")
        elif auth is Auth.INTAKE_KEY:
            if not _refused_for_want_of_a_key(status, code):
                failures.append(f"{method} {rule} without a key: {status} {code}")
        elif (status, code) != (401, "AUTH_REQUIRED"):
            failures.append(f"{method} {rule} without a token: {status} {code}")
        if auth is not Auth.PUBLIC:
            for wrong in (WRONG[index % len(WRONG)], *(WRONG if auth is Auth.INTAKE_KEY else ())):
                status, code = await call(token_client, method, path, wrong, body)
                if auth is Auth.INTAKE_KEY:
                    refused = _refused_for_want_of_a_key(status, code)
                else:
                    refused = auth is Auth.SIGNED_WEBHOOK or (status, code) == (
                        401,
                        "AUTH_REQUIRED",
                    )
                if not refused:
                    failures.append(f"{method} {rule} with a wrong token {wrong}: {status} {code}")
        for name, headers in ACCEPTED.items():
            if auth is Auth.LOOPBACK_HOST_EFFECT:
                status, code = await call(token_client, method, path, headers | OTHER_TENANT)
                if (status, code) != HOST_EFFECT_REFUSAL:
                    failures.append(f"{method} {rule} for another tenant: {status} {code}")
                continue
            status, code = await call(token_client, method, path, headers, body)
            if auth is Auth.INTAKE_KEY:
                # The engine token is no intake key: the route still asks for one.
                if not _refused_for_want_of_a_key(status, code):
                    failures.append(f"{method} {rule} with the token in {name}: {status} {code}")
            elif code == "AUTH_REQUIRED" or status >= 500:
                failures.append(f"{method} {rule} with the token in {name}: {status} {code}")
    assert not failures, "\n".join(failures)


def _refused_for_want_of_a_key(status: int, code: str | None) -> bool:
    """The intake route's own refusal: no intake key, or not a valid one for the project."""
    return status == 401 and code in (
        "INCIDENT_MONITOR_INTAKE_KEY_REQUIRED",
        "INCIDENT_MONITOR_INTAKE_KEY_INVALID",
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/doc"),
        ("GET", "/doc/"),
        ("GET", "/DOC"),
        ("GET", "/doc/other.js"),
        ("GET", "/doc/..%2fopenapi.json"),
        ("GET", "/openapi.json"),
        ("POST", "/global/health"),
        ("GET", "/global/health/"),
    ],
)
async def test_the_public_bypass_is_exact_on_method_and_path(
    token_client: httpx.AsyncClient, method: str, path: str
) -> None:
    status, code = await call(token_client, method, path, {})
    assert (status, code) == (401, "AUTH_REQUIRED")
