"""``svc-engine panel``: the control panel (the web application, proxying the engine)."""

from __future__ import annotations

import signal

import asyncclick as click
import trio

from svc.errors import SvcError
from svc.logs import configure_logging

from .common import fail, load_settings


@click.command()
@click.option(
    "--hostname", "--host", "host", default=None, help="Bind address (default 127.0.0.1)."
)
@click.option("--port", type=int, default=None, help="Port (default 39732; 0 picks a free one).")
@click.option("--engine-url", default=None, help="The engine (default http://127.0.0.1:39731).")
async def panel(host: str | None, port: int | None, engine_url: str | None) -> None:
    """Serve the control panel until SIGINT or SIGTERM.

    The browser never holds the engine token: the panel adds it
    (SVC_CONTROL_PANEL_ENGINE_TOKEN). With SVC_CONTROL_PANEL_AUTO_START_ENGINE=1 it
    starts an engine when none answers, and stops only an engine it started.

    \b
    Example:
      svc-engine panel --port 39732
    """
    from svc.webui.panel.config import PanelConfig
    from svc.webui.panel.server import serve_panel

    settings = load_settings()
    configure_logging(settings.log_level)
    try:
        config = PanelConfig.from_settings(settings, host=host, port=port, engine_url=engine_url)
    except SvcError as exc:
        fail(exc.message, 2)
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            try:
                running = await nursery.start(serve_panel, config)
            except SvcError as exc:
                fail(exc.message, 2)
            started = " (started by the panel)" if running.engine.started else ""
            # Last: clients (and tests) take this line as "ready".
            click.echo(
                f"svc-engine panel listening on {running.url}, engine {running.engine.url}"
                f"{started}",
                err=True,
            )
            async for _ in signals:
                click.echo("svc-engine panel shutting down", err=True)
                break
            nursery.cancel_scope.cancel()
