"""What every request passes before its route: Host, Origin, preflight, token, readiness, size.

Order matters. Host and Origin come first: a refused page or rebound name
learns nothing but the refusal. A CORS preflight from an allowed origin is
answered next, without the token (browsers never send credentials on a
preflight). Then the token: an unauthenticated caller learns nothing more,
not even that the engine is still starting or that a route exists.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from quart import Quart, current_app, g, request
from quart.typing import ResponseTypes

from ..errors import AuthRequired, EngineStarting, Forbidden, PayloadTooLarge
from .access import AccessPolicy
from .auth import (
    is_intake_route,
    is_public,
    presented_token,
    presents_intake_key,
    token_matches,
)
from .body_limits import SCOPE_KEY, describe
from .errors import error_response
from .responses import Response, no_content

if TYPE_CHECKING:
    from ..engine import Engine
    from ..settings import Settings

PREFLIGHT_MAX_AGE = "600"

# Headers a browser script may read without being told (the CORS safelist).
_SAFELISTED = frozenset(
    {
        "cache-control",
        "content-language",
        "content-length",
        "content-type",
        "expires",
        "last-modified",
        "pragma",
    }
)


class HostNotAllowed(Forbidden):
    """The request names a host this engine does not answer to."""

    code = "HOST_NOT_ALLOWED"


class OriginNotAllowed(Forbidden):
    """Requests from this web page are not allowed."""

    code = "ORIGIN_NOT_ALLOWED"


class IntakeKeyRefused(Forbidden):
    """An incident-monitor intake key may only report (POST /incident-monitor/intake/report)."""

    code = "INCIDENT_MONITOR_INTAKE_KEY_FORBIDDEN"


def install_gate(
    app: Quart,
    engine: Engine,
    *,
    public_get_paths: Collection[str] = frozenset(),
) -> None:
    """``public_get_paths``: exact raw paths answered to GET/HEAD without the token
    (the embedded web application's shell and files, see svc/webui/embed.py)."""
    cached: tuple[Settings, AccessPolicy] | None = None

    def policy() -> AccessPolicy:
        # Settings are replaced on reload; the policy follows them.
        nonlocal cached
        if cached is None or cached[0] is not engine.settings:
            cached = (engine.settings, _policy_of(engine.settings))
        return cached[1]

    @app.before_request
    async def _gate() -> Any:
        rules = policy()
        host = request.headers.get("Host")
        if not rules.host_allowed(host):
            return error_response(
                HostNotAllowed(
                    f"host `{host}` is not allowed: name the engine by a loopback address, "
                    "or list the name in allowed_hosts (SVC_ALLOWED_HOSTS)"
                )
            )
        origin = request.headers.get("Origin")
        if origin is not None:
            if not rules.origin_allowed(origin, host_header=host, server_port=_server_port()):
                return error_response(
                    OriginNotAllowed(
                        f"requests from the web page `{origin}` are not allowed; list it in "
                        "allowed_origins (SVC_ALLOWED_ORIGINS) to allow it"
                    )
                )
            g.cors_origin = origin
            if _is_preflight():
                return _preflight_response(origin)
        if is_public(request.method, request.path) or (
            request.method in ("GET", "HEAD") and _raw_path() in public_get_paths
        ):
            return None
        if is_intake_route(request.method, request.path):
            pass  # an intake key, not the engine token, authorizes this route (it checks the key)
        elif presents_intake_key(request.headers):
            return error_response(IntakeKeyRefused())
        else:
            token = engine.settings.token
            if token is not None and not token_matches(presented_token(request.headers), token):
                return error_response(AuthRequired())
        if not engine.ready:
            return error_response(EngineStarting("Engine starting"))
        # Refuse an oversized body before reading it (chunked bodies are capped by
        # the route's limit while they are read: svc/http/app.py).
        limit = request_body_limit()
        if request.content_length is not None and request.content_length > limit:
            return error_response(too_large(limit))
        return None

    @app.after_request
    async def _cors(response: ResponseTypes) -> ResponseTypes:
        origin = g.get("cors_origin")
        if origin is not None and "Access-Control-Allow-Origin" not in response.headers:
            # Only an origin the gate allowed is ever echoed; never a wildcard.
            response.headers["Access-Control-Allow-Origin"] = origin
            response.vary.add("Origin")
            names = {name.lower() for name, _ in response.headers.items()}
            exposed = sorted(n for n in names - _SAFELISTED if not n.startswith("access-control-"))
            if exposed:
                response.headers["Access-Control-Expose-Headers"] = ", ".join(exposed)
        return response


def request_body_limit() -> int:
    """The body limit of the current request's route (set as the exchange began)."""
    limit = request.scope.get(SCOPE_KEY)
    if isinstance(limit, int):
        return limit
    engine: Engine = current_app.config["SVC_ENGINE"]
    return engine.settings.max_body_bytes


def too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"request body exceeds the {describe(limit)} limit of this route", limitBytes=limit
    )


def _policy_of(settings: Settings) -> AccessPolicy:
    return AccessPolicy.build(
        bound_host=settings.host,
        token_configured=settings.token is not None,
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=settings.allowed_origins,
    )


def _server_port() -> int | None:
    server = request.scope.get("server")
    return int(server[1]) if server and server[1] is not None else None


def _raw_path() -> str:
    # The path as sent, before percent-decoding: `/admin%2fapp.js` is not `/admin/app.js`.
    raw = request.scope.get("raw_path")
    return raw.decode("latin-1") if raw else request.path


def _is_preflight() -> bool:
    return request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers


def _preflight_response(origin: str) -> Response:
    headers = {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
        "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
        "Vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    }
    requested = request.headers.get("Access-Control-Request-Headers")
    if requested:
        headers["Access-Control-Allow-Headers"] = requested
    return no_content(headers)
