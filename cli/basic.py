"""Small commands: status, token, providers."""

from __future__ import annotations

import secrets
from pathlib import Path

import asyncclick as click

from .common import fail, load_settings, print_json


@click.command()
@click.option(
    "--hostname", "--host", "host", default="127.0.0.1", envvar="SVC_ENGINE_HOST", show_default=True
)
@click.option("--port", type=int, default=39731, envvar="SVC_ENGINE_PORT", show_default=True)
async def status(host: str, port: int) -> None:
    """Print the engine's health; exit non-zero when it is down.

    \b
    Example:
      svc-engine status --port 39731
    """
    import httpx  # only here: `token generate` and `providers` do not need it

    url = f"http://{host}:{port}/global/health"
    try:
        async with httpx.AsyncClient(timeout=5.0) as client:
            response = await client.get(url)
    except httpx.HTTPError as exc:
        fail(f"engine health check failed: cannot reach {url} ({type(exc).__name__})")
    if response.status_code // 100 != 2:
        fail(f"engine health check failed: {response.status_code} {response.text.strip()}")
    try:
        body = response.json()
    except ValueError:
        fail("engine health check failed: the response is not JSON")
    print_json(body)
    if not body.get("ready", False):
        raise SystemExit(1)


@click.group()
async def token() -> None:
    """API tokens.

    \b
    Example:
      export SVC_API_TOKEN=$(svc-engine token generate)
    """


@token.command("generate")
async def token_generate() -> None:
    """Print a new API token (tk_ followed by 32 hex digits).

    \b
    Example:
      svc-engine serve --api-token "$(svc-engine token generate)"
    """
    click.echo("tk_" + secrets.token_hex(16))


@click.command()
@click.option(
    "--config", type=click.Path(path_type=Path), default=None, help="Project config file."
)
async def providers(config: Path | None) -> None:
    """List the provider ids valid for --provider; `*` marks the configured ones.

    \b
    Example:
      OPENAI_API_KEY=sk-... svc-engine providers
    """
    from svc.providers.catalog import (
        LOCAL_MODEL_ID,
        LOCAL_PROVIDER_ID,
        PROVIDERS,
        setup_hint,
    )
    from svc.providers.registry import (
        FALLBACK_NOTICE,
        LOCAL_NOTE,
        configured_provider_ids,
        default_route,
    )

    settings = load_settings(config_path=config)
    configured = set(configured_provider_ids(settings))
    click.echo("Supported providers (* configured):")
    click.echo(f"* {LOCAL_PROVIDER_ID:<11} {LOCAL_NOTE} ({LOCAL_MODEL_ID}), always available")
    for info in PROVIDERS:
        mark = "*" if info.id in configured else " "
        how = "configured" if info.id in configured else setup_hint(info.id)
        click.echo(f"{mark} {info.id:<11} {how}")
    for custom in sorted(configured - {info.id for info in PROVIDERS}):
        click.echo(f"* {custom:<11} custom OpenAI-compatible endpoint")
    route = default_route(settings)
    click.echo(f"Default: {route.describe()}")
    if route.is_fallback:
        click.echo(f"note: {FALLBACK_NOTICE}", err=True)
