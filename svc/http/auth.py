"""Token authentication for every route but the public health check.

The token may come in ``X-Agent-Token`` (canonical), ``X-Svc-Token``
(compatibility) or ``Authorization: Bearer``. The first header present is the
one checked: a wrong token in it is not rescued by a right one elsewhere.
Comparison is constant-time on SHA-256 digests, so neither the token's value
nor its length leaks through timing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Protocol

TOKEN_HEADERS = ("x-agent-token", "x-svc-token")

# Exact method and path (``svc/http/policy.py`` lists them as PUBLIC): the
# health check, and the static shell of the API reference page, which asks
# for the token before it fetches anything the token guards.
PUBLIC_ROUTES = frozenset(
    (method, path)
    for path in (
        "/global/health",
        "/doc",
        "/doc/redoc.standalone.js",
        "/doc/doc.js",
    )
    for method in ("GET", "HEAD")
) | frozenset(
    {
        # Authenticated by Slack's request signature instead (svc/http/routes/channels.py).
        ("POST", "/channels/slack/events"),
    }
)

# The incident monitor's scoped intake keys reach one route, with no engine token (the
# route checks the key itself), and are refused everywhere else.
INTAKE_KEY_HEADER = "x-svc-incident-monitor-intake-key"
INTAKE_KEY_PREFIX = "tim_intake_"
INTAKE_ROUTES = frozenset({("POST", "/incident-monitor/intake/report")})


class HeaderLookup(Protocol):
    """Case-insensitive header access: a werkzeug ``Headers`` or a plain dict."""

    def get(self, key: str, /) -> str | None: ...


def presented_token(headers: HeaderLookup) -> str | None:
    for name in TOKEN_HEADERS:
        value = headers.get(name)
        if value:
            return value.strip()
    auth = headers.get("authorization")
    if auth:
        scheme, _, credential = auth.strip().partition(" ")
        if scheme.lower() == "bearer" and credential.strip():
            return credential.strip()
        return ""  # a malformed Authorization header is a wrong token, not a missing one
    return None


def token_matches(presented: str | None, expected: str) -> bool:
    if presented is None:
        return False
    a = hashlib.sha256(presented.encode()).digest()
    b = hashlib.sha256(expected.encode()).digest()
    return hmac.compare_digest(a, b)


def is_intake_route(method: str, path: str) -> bool:
    return (method, path.rstrip("/") or "/") in INTAKE_ROUTES


def presents_intake_key(headers: HeaderLookup) -> bool:
    """The request carries an intake key (its header, or a bearer credential shaped like one)."""
    if headers.get(INTAKE_KEY_HEADER):
        return True
    auth = (headers.get("authorization") or "").strip()
    scheme, _, credential = auth.partition(" ")
    return scheme.lower() == "bearer" and credential.strip().startswith(INTAKE_KEY_PREFIX)


# Routes with a variable segment that authenticate their caller themselves, so the gate
# asks no token: automation v2 webhook triggers check the signature over the raw body
# (svc/http/routes/automations_v2_webhooks.py); an MCP authorization server redirects the
# person's browser (which holds no engine token) back to the callback, whose ``state`` the
# OAuth service checks (svc/mcp/oauth.py).
PUBLIC_PATTERNS = (
    ("POST", re.compile(r"/webhooks/automations/[^/]+")),
    ("GET", re.compile(r"/mcp/[^/]+/auth/callback")),
)


def is_public(method: str, path: str) -> bool:
    return (method, path) in PUBLIC_ROUTES or any(
        method == m and pattern.fullmatch(path) for m, pattern in PUBLIC_PATTERNS
    )
