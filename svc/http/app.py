"""The Quart-Trio application: the gate, error mapping, and one blueprint per area."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, Scope
from quart.wrappers import Request
from quart_trio import QuartTrio
from quart_trio.asgi import TrioASGIHTTPConnection

from .body_limits import SCOPE_KEY, largest_limit, route_limit
from .errors import install_error_handlers
from .forward import install_forwarding
from .gate import install_gate
from .keepalive import guard_exchange
from .routes import BLUEPRINTS
from .routing import Int64Converter, LazyBuildRule

if TYPE_CHECKING:
    from ..engine import Engine
    from ..settings import Settings

MAX_BODY_BYTES = 1024 * 1024
"""The default of ``max_body_bytes`` (the engine's settings hold the limits in force)."""


class RouteLimitedConnection(TrioASGIHTTPConnection):
    """Reads a request body up to its route's limit (svc/http/body_limits.py), not the app's."""

    def _create_request_from_scope(self, send: ASGISendCallable) -> Request:
        request = super()._create_request_from_scope(send)
        limit = cast(dict[str, Any], self.scope).get(SCOPE_KEY)
        if isinstance(limit, int):
            # Nothing has been read yet: the body is still empty when it is replaced.
            request.body = request.body_class(request.content_length, limit)
        return request


class EngineApp(QuartTrio):
    """QuartTrio whose HTTP exchanges leave their connection usable (see keepalive.py) and
    whose request bodies are bounded per route."""

    asgi_http_class = RouteLimitedConnection

    async def asgi_app(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        if scope["type"] == "http":
            settings = self.config["SVC_ENGINE"].settings
            limit = route_limit(self.url_map, settings, scope["method"], scope["path"])
            cast(dict[str, Any], scope)[SCOPE_KEY] = limit
            # Bodies up to the largest limit are read to their end, past the route's
            # limit discarded, so the connection carries the next request.
            receive, send = guard_exchange(
                scope, receive, send, limit=max(limit, largest_limit(settings))
            )
        await super().asgi_app(scope, receive, send)


def check_web_ui(settings: Settings) -> None:
    """Refuse a bad ``web_ui_prefix`` before the engine starts (ConfigError saying why).

    ``create_app`` checks again as it mounts the page; this earlier check lets
    ``serve`` report the mistake in one line instead of a failed start-up.
    """
    if not settings.web_ui:
        return
    from ..webui.embed import normalize_prefix, refuse_overlap

    routes = QuartTrio("svc-routes", static_folder=None)
    routes.url_rule_class = LazyBuildRule
    for blueprint in BLUEPRINTS:
        routes.register_blueprint(blueprint)
    refuse_overlap(routes, normalize_prefix(settings.web_ui_prefix))


def create_app(engine: Engine) -> QuartTrio:
    app = EngineApp("svc", static_folder=None)
    app.url_rule_class = LazyBuildRule
    app.url_map.converters["int"] = Int64Converter
    app.config.update(
        SVC_ENGINE=engine,
        # Each request's own limit is its route's (RouteLimitedConnection); this is the
        # most any route takes.
        MAX_CONTENT_LENGTH=largest_limit(engine.settings),
        BODY_TIMEOUT=60,
        RESPONSE_TIMEOUT=None,
        PROVIDE_AUTOMATIC_OPTIONS=True,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    shell_paths: set[str] = set()
    install_gate(app, engine, public_get_paths=shell_paths)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    if engine.settings.web_ui:
        # Imported only when on: an engine without the page never loads it.
        from ..webui.embed import install_web_ui, normalize_prefix

        prefix = normalize_prefix(engine.settings.web_ui_prefix)
        shell_paths.update(install_web_ui(app, prefix))
    install_error_handlers(app)
    install_forwarding(app)  # replicas on one store: an entity owned elsewhere
    return app
