"""The Quart-Trio application: the gate, error mapping, and one blueprint per area."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, Scope
from quart_trio import QuartTrio

from .errors import install_error_handlers
from .forward import install_forwarding
from .gate import install_gate
from .keepalive import guard_exchange
from .routes import BLUEPRINTS
from .routing import Int64Converter, LazyBuildRule

if TYPE_CHECKING:
    from ..engine import Engine
    from ..settings import Settings

MAX_BODY_BYTES = 10 * 1024 * 1024
"""The default of ``max_body_bytes`` (the engine's settings hold the limit in force)."""


class EngineApp(QuartTrio):
    """QuartTrio whose HTTP exchanges leave their connection usable (see keepalive.py)."""

    async def asgi_app(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        if scope["type"] == "http":
            limit = self.config["MAX_CONTENT_LENGTH"]
            receive, send = guard_exchange(scope, receive, send, limit=limit)
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
        MAX_CONTENT_LENGTH=engine.settings.max_body_bytes,
        BODY_TIMEOUT=60,
        RESPONSE_TIMEOUT=None,
        PROVIDE_AUTOMATIC_OPTIONS=True,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    shell_paths: set[str] = set()
    install_gate(
        app, engine, max_body_bytes=engine.settings.max_body_bytes, public_get_paths=shell_paths
    )
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
