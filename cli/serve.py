"""``svc-engine serve``: run the HTTP/SSE API until SIGINT or SIGTERM."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import TYPE_CHECKING

import asyncclick as click
import trio

from svc.errors import SvcError
from svc.logs import configure_logging

from . import heap
from .common import QUIET_HELP, fail, load_settings

if TYPE_CHECKING:
    from svc.providers.registry import DefaultRoute


@click.command()
@click.option(
    "--hostname", "--host", "host", default=None, help="Bind address (default 127.0.0.1)."
)
@click.option("--port", type=int, default=None, help="Port (default 39731; 0 picks a free one).")
@click.option(
    "--state-dir", type=click.Path(path_type=Path), default=None, help="Where state lives."
)
@click.option(
    "--store",
    "store_url",
    default=None,
    help="Where state lives: postgresql://user:password@host/db for replicas sharing a "
    "database (or SVC_STORE_URL; default SQLite in the state dir).",
)
@click.option(
    "--replica-url",
    default=None,
    help="This replica's URL as the other replicas reach it (or SVC_REPLICA_URL).",
)
@click.option(
    "--in-process",
    is_flag=True,
    default=False,
    help="Run everything in this process (the only mode).",
)
@click.option("--provider", default=None, help="Default provider id.")
@click.option("--model", default=None, help="Default model for that provider.")
@click.option("--api-key", default=None, help="API key for that provider (this process only).")
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Project config file (default .svc/config.json).",
)
@click.option(
    "--api-token", default=None, help="Require this token on every route (or SVC_API_TOKEN)."
)
@click.option("--web-ui/--no-web-ui", default=None, help="Serve the embedded admin page.")
@click.option("--web-ui-prefix", default=None, help="Path of the admin page (default /admin).")
@click.option("--quiet", "-q", is_flag=True, help=QUIET_HELP)
async def serve(
    host: str | None,
    port: int | None,
    state_dir: Path | None,
    store_url: str | None,
    replica_url: str | None,
    in_process: bool,
    provider: str | None,
    model: str | None,
    api_key: str | None,
    config_path: Path | None,
    api_token: str | None,
    web_ui: bool | None,
    web_ui_prefix: str | None,
    quiet: bool,
) -> None:
    """Run the HTTP/SSE server until SIGINT or SIGTERM.

    \b
    Example:
      OPENAI_API_KEY=sk-... svc-engine serve --port 39731
    """
    # Collection stays paused until the engine is ready: start-up (settings, the
    # domains, migrations, the route map) builds long-lived objects only.
    heap.pause_collection()
    # The engine is imported here, not with the command group: other commands never load it.
    from svc.engine import ensure_bind_allowed, open_engine

    settings = load_settings(
        host=host,
        port=port,
        state_dir=state_dir,
        store_url=store_url,
        replica_url=replica_url,
        provider=provider,
        model=model,
        api_key=api_key,
        config_path=config_path,
        api_token=api_token,
        web_ui=web_ui,
        web_ui_prefix=web_ui_prefix,
    )
    configure_logging(settings.log_level)
    try:
        ensure_bind_allowed(settings)
        if settings.web_ui:
            from svc.http.app import check_web_ui

            check_web_ui(settings)
    except SvcError as exc:
        fail(exc.message, 2)
    # SIGINT and SIGTERM both mean "shut down gracefully and exit 0".
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        try:
            async with open_engine(settings, serve_http=True) as engine:
                heap.settle()
                if not quiet:
                    _say_what_answers(engine.providers.default_route())
                # Last: clients (and tests) take this line as "ready".
                click.echo(f"svc-engine {engine.version} listening on {engine.url}", err=True)
                async for _ in signals:
                    click.echo("svc-engine shutting down", err=True)
                    break
        except SvcError as exc:
            fail(exc.message, 2)
        finally:
            # A start-up that failed still gets its collector back.
            heap.settle()


def _say_what_answers(route: DefaultRoute) -> None:
    """Once at start: the model runs use when they name none, and how to get a real one."""
    from svc.providers.registry import FALLBACK_NOTICE

    click.echo(f"svc-engine default model: {route.describe()}", err=True)
    if route.is_fallback:
        click.echo(f"note: {FALLBACK_NOTICE} (--quiet hides this note)", err=True)
