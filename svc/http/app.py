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
from .routing import LazyBuildRule

if TYPE_CHECKING:
    from ..engine import Engine

MAX_BODY_BYTES = 10 * 1024 * 1024


class EngineApp(QuartTrio):
    """QuartTrio whose HTTP exchanges leave their connection usable (see keepalive.py)."""

    async def asgi_app(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        if scope["type"] == "http":
            receive, send = guard_exchange(scope, receive, send, limit=MAX_BODY_BYTES)
        await super().asgi_app(scope, receive, send)


def create_app(engine: Engine) -> QuartTrio:
    app = EngineApp("svc", static_folder=None)
    app.url_rule_class = LazyBuildRule
    app.config.update(
        SVC_ENGINE=engine,
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        BODY_TIMEOUT=60,
        RESPONSE_TIMEOUT=None,
        PROVIDE_AUTOMATIC_OPTIONS=True,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    install_gate(app, engine, max_body_bytes=MAX_BODY_BYTES)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    install_error_handlers(app)
    install_forwarding(app)  # replicas on one store: an entity owned elsewhere
    return app
