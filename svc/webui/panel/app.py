"""The panel's Quart-Trio app: the application at ``/``, the engine proxied under ``/engine``.

Forwarded requests carry the engine token (added here, never sent to the
browser) and ``x-svc-request-source: control_panel``; responses, SSE included,
stream through chunk by chunk as the engine writes them.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncIterator
from typing import Any

import httpx
import trio
from quart import request
from quart_trio import QuartTrio
from quart_trio.wrappers import TrioResponse as Response

from ..assets import shell, static_files
from ..responses import asset_response
from .config import SOURCE, PanelConfig
from .guard import host_allowed, origin_allowed

API_PREFIX = "/engine"
MAX_BODY_BYTES = 10 * 1024 * 1024

# Request headers worth forwarding; anything else (cookies, the browser's own
# credentials, hop-by-hop headers) stays at the panel.
FORWARD_REQUEST = frozenset(
    {"accept", "content-type", "last-event-id", "idempotency-key", "x-svc-idempotency-key"}
)
HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "server", "date"}
)


def _json(status: int, code: str, message: str) -> Response:
    import json

    body = json.dumps({"error": message, "code": code, "retryable": False})
    return Response(body, status=status, content_type="application/json")


def _token_matches(presented: str | None, expected: str) -> bool:
    a = hashlib.sha256((presented or "").encode()).digest()
    b = hashlib.sha256(expected.encode()).digest()
    return presented is not None and hmac.compare_digest(a, b)


def _presented_token() -> str | None:
    for name in ("x-agent-token", "x-svc-token"):
        if value := request.headers.get(name):
            return value.strip()
    scheme, _, credential = (request.headers.get("authorization") or "").partition(" ")
    return credential.strip() if scheme.lower() == "bearer" else None


def create_panel_app(config: PanelConfig, client: httpx.AsyncClient) -> QuartTrio:
    app = QuartTrio("svc-panel", static_folder=None)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY_BYTES, BODY_TIMEOUT=60, RESPONSE_TIMEOUT=None)
    files = static_files()

    @app.before_request
    async def _guard() -> Any:
        server = request.scope.get("server")
        port = int(server[1]) if server and server[1] is not None else config.port
        host = request.headers.get("Host")
        if not host_allowed(host, bind_host=config.host, port=port):
            return _json(403, "HOST_NOT_ALLOWED", f"host `{host}` is not this control panel")
        origin = request.headers.get("Origin")
        if origin is not None and not origin_allowed(origin, host_header=host, port=port):
            return _json(403, "ORIGIN_NOT_ALLOWED", f"requests from `{origin}` are not allowed")
        return None

    @app.get("/")
    async def index() -> Response:
        return asset_response(shell("/", "panel", API_PREFIX))

    @app.get("/agents")
    async def agents() -> Response:
        # The old agents page lives on as the automations page (SPEC §9).
        return Response("", status=302, headers={"Location": "/#/automations"})

    @app.get("/<path:name>")
    async def asset(name: str) -> Response:
        found = files.get(name)
        if found is None:
            return _json(404, "NOT_FOUND", "no such page")
        return asset_response(found)

    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]

    @app.route(f"{API_PREFIX}/<path:path>", methods=methods)
    async def proxy(path: str) -> Response:
        if config.access_token is not None and not _token_matches(
            _presented_token(), config.access_token
        ):
            return _json(401, "AUTH_REQUIRED", "Unauthorized: missing or invalid access token")
        return await _forward(client, config, path)

    return app


async def _forward(client: httpx.AsyncClient, config: PanelConfig, path: str) -> Response:
    headers = {k: v for k, v in request.headers.items() if k.lower() in FORWARD_REQUEST}
    headers["x-svc-request-source"] = SOURCE
    if config.engine_token:
        headers["X-Agent-Token"] = config.engine_token
    query = request.query_string.decode("latin-1")
    url = f"{config.engine_url}/{path}" + (f"?{query}" if query else "")
    body = await request.get_data(cache=False) if request.method not in ("GET", "HEAD") else b""
    upstream_request = client.build_request(request.method, url, headers=headers, content=body)
    try:
        upstream = await client.send(upstream_request, stream=True)
    except httpx.HTTPError as exc:
        return _json(
            502,
            "ENGINE_UNREACHABLE",
            f"the engine at {config.engine_url} did not answer: {type(exc).__name__}",
        )
    out_headers = [(k, v) for k, v in upstream.headers.multi_items() if k.lower() not in HOP_BY_HOP]
    response = Response(_relay(upstream), status=upstream.status_code)
    response.headers.clear()
    for key, value in out_headers:
        response.headers.add(key, value)
    response.timeout = None  # an SSE stream lives as long as its client
    return response


async def _relay(upstream: httpx.Response) -> AsyncIterator[bytes]:
    try:
        async for chunk in upstream.aiter_raw():
            yield chunk
    finally:
        # Shielded and bounded: the browser went away (the handler is cancelled), and
        # the engine's side of the stream must still be closed, not left to linger.
        with trio.CancelScope(shield=True), trio.move_on_after(5):
            await upstream.aclose()
