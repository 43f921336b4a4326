"""What one control panel needs to know, read from the settings and the command line."""

from __future__ import annotations

import attrs

from ...errors import ConfigError
from ...settings import Settings
from .guard import is_loopback

DEFAULT_ENGINE_PORT = 39731
SOURCE = "control_panel"
DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
"""The engine's largest default body limit (prompts, imports)."""

__all__ = ["DEFAULT_ENGINE_PORT", "SOURCE", "PanelConfig"]


@attrs.frozen
class PanelConfig:
    host: str
    port: int
    engine_url: str
    engine_token: str | None = attrs.field(repr=False)
    access_token: str | None = attrs.field(repr=False, default=None)
    auto_start: bool = False
    shared: bool = True
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    """The largest body the panel forwards: the largest the engine's settings take on any
    route (the engine then applies each route's own limit), so the panel never refuses
    what the engine would accept."""

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        host: str | None = None,
        port: int | None = None,
        engine_url: str | None = None,
    ) -> PanelConfig:
        engine_token = settings.control_panel_engine_token or settings.api_token
        access = settings.control_panel_token
        config = cls(
            host=host or settings.control_panel_host,
            port=settings.control_panel_port if port is None else port,
            engine_url=(engine_url or settings.engine_url).rstrip("/"),
            engine_token=engine_token.get_secret_value() if engine_token else None,
            access_token=access.get_secret_value() if access else None,
            auto_start=settings.control_panel_auto_start_engine,
            shared=settings.shared_engine_mode,
            max_body_bytes=max(
                settings.max_body_bytes,
                settings.max_prompt_body_bytes,
                settings.max_import_body_bytes,
            ),
        )
        config.check_bind()
        return config

    def check_bind(self) -> None:
        if self.access_token is None and not is_loopback(self.host.strip("[]").lower()):
            raise ConfigError(
                f"the control panel adds the engine token to what it forwards, so it binds "
                f"`{self.host}` only with an access token of its own (SVC_CONTROL_PANEL_TOKEN); "
                "without one it binds loopback"
            )
