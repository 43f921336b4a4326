"""The Quart-Trio application: auth, error mapping, and one blueprint per area."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import request
from quart_trio import QuartTrio

from ..errors import AuthRequired, EngineStarting, PayloadTooLarge
from .auth import is_public, presented_token, token_matches
from .errors import error_response, install_error_handlers
from .routes import BLUEPRINTS
from .routing import LazyBuildRule

if TYPE_CHECKING:
    from ..engine import Engine

MAX_BODY_BYTES = 10 * 1024 * 1024


def create_app(engine: Engine) -> QuartTrio:
    app = QuartTrio("svc", static_folder=None)
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

    @app.before_request
    async def _gate() -> Any:
        # Auth first: an unauthenticated caller learns nothing, not even that
        # the engine is still starting or that a route exists.
        if is_public(request.method, request.path):
            return None
        token = engine.settings.token
        if token is not None and not token_matches(presented_token(request.headers), token):
            return error_response(AuthRequired())
        if not engine.ready:
            return error_response(EngineStarting("Engine starting"))
        # Refuse an oversized body before reading it (chunked bodies are capped
        # by MAX_CONTENT_LENGTH while they are read).
        if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
            return error_response(PayloadTooLarge())
        return None

    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    install_error_handlers(app)
    return app
