"""Run the control panel until cancelled: its engine link, its client, its HTTP server."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, cast

import attrs
import httpx
import hypercorn.config
import hypercorn.trio
import trio

from .app import create_panel_app
from .config import PanelConfig
from .engine_process import EngineLink, open_engine_link

if TYPE_CHECKING:
    from hypercorn.typing import ASGIFramework

GRACE_SECONDS = 5.0


@attrs.frozen
class RunningPanel:
    url: str
    engine: EngineLink


async def serve_panel(
    config: PanelConfig, *, task_status: trio.TaskStatus[RunningPanel] = trio.TASK_STATUS_IGNORED
) -> None:
    """Serve until cancelled; ``task_status`` gets the panel's URL and its engine."""
    # No read timeout: a proxied SSE stream is silent for as long as the engine is.
    timeout = httpx.Timeout(10.0, read=None)
    async with (
        httpx.AsyncClient(timeout=timeout, limits=httpx.Limits(max_connections=None)) as client,
        open_engine_link(config, client) as engine,
    ):
        app = create_panel_app(attrs.evolve(config, engine_url=engine.url), client)
        hyper = hypercorn.config.Config()
        host = config.host
        hyper.bind = [f"[{host}]:{config.port}" if ":" in host else f"{host}:{config.port}"]
        hyper.graceful_timeout = GRACE_SECONDS
        hyper.accesslog = None
        hyper.errorlog = logging.getLogger("hypercorn.error")

        class _Started:
            def started(self, binds: list[str] | None = None) -> None:
                task_status.started(RunningPanel(binds[0] if binds else "", engine))

        # Cancellation (the caller's) is the shutdown: hypercorn stops gracefully within it.
        await hypercorn.trio.serve(
            cast("ASGIFramework", app),
            hyper,
            shutdown_trigger=trio.sleep_forever,
            task_status=_Started(),
        )
