"""The panel's app: the application at ``/``, the engine proxied under ``/engine``.

The page's files are served by a small Quart-Trio app; ``/engine/<path>`` is
forwarded below it at the ASGI level (:mod:`.proxy`): forwarded requests carry
the engine token (added there, never sent to the browser) and
``x-svc-request-source: control_panel``; responses, SSE included, stream
through chunk by chunk as the engine writes them.
"""

from __future__ import annotations

import json
from typing import Any, cast

import httpx
from quart import request
from quart_trio import QuartTrio
from quart_trio.wrappers import TrioResponse as Response

from ..assets import shell, static_files
from ..responses import asset_response
from .config import PanelConfig
from .proxy import API_PREFIX, ASGIApp, EngineProxy, refusal


def _json(status: int, code: str, message: str) -> Response:
    body = json.dumps({"error": message, "code": code, "retryable": False})
    return Response(body, status=status, content_type="application/json")


def create_panel_app(config: PanelConfig, client: httpx.AsyncClient) -> EngineProxy:
    app = QuartTrio("svc-panel", static_folder=None)
    app.config.update(BODY_TIMEOUT=60, RESPONSE_TIMEOUT=None)
    files = static_files()

    @app.before_request
    async def _guard() -> Any:
        server = request.scope.get("server")
        port = int(server[1]) if server and server[1] is not None else config.port
        headers = {k.lower(): v for k, v in request.headers.items()}
        refused = refusal(headers, config, port)
        return _json(*refused) if refused is not None else None

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

    # Quart's ASGI signature names hypercorn's precise scope types; the proxy reads plain
    # mappings.
    return EngineProxy(cast(ASGIApp, app), config, client)
