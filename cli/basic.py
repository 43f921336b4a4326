"""Small commands: status, token, providers, chat."""

from __future__ import annotations

import secrets

import asyncclick as click

from svc.providers import PROVIDER_IDS

from .common import fail, print_json


@click.command()
@click.option(
    "--hostname", "--host", "host", default="127.0.0.1", envvar="SVC_ENGINE_HOST", show_default=True
)
@click.option("--port", type=int, default=39731, envvar="SVC_ENGINE_PORT", show_default=True)
async def status(host: str, port: int) -> None:
    """Print the engine's health; exit non-zero when it is down."""
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
    """API tokens."""


@token.command("generate")
async def token_generate() -> None:
    """Print a new API token (tk_ followed by 32 hex digits)."""
    click.echo("tk_" + secrets.token_hex(16))


@click.command()
async def providers() -> None:
    """List the provider ids valid for --provider."""
    click.echo("Supported providers:")
    for provider_id in PROVIDER_IDS:
        click.echo(f"  - {provider_id}")


@click.command()
async def chat() -> None:
    """Interactive chat (planned)."""
    click.echo("Interactive chat mode is planned; use `svc-engine serve` for now.")
