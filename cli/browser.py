"""``svc-engine browser status | doctor | install``."""

from __future__ import annotations

from pathlib import Path

import asyncclick as click

from .common import fail, load_settings, print_json

_STATE_DIR = click.option(
    "--state-dir", type=click.Path(path_type=Path), default=None, help="Where state lives."
)
_CONFIG = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Project config file.",
)
_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group()
async def browser() -> None:
    """Browser automation: readiness, diagnostics, sidecar installation."""


@browser.command("status")
@click.option(
    "--hostname", "--host", "host", default="127.0.0.1", envvar="SVC_ENGINE_HOST", show_default=True
)
@click.option("--port", type=int, default=39731, envvar="SVC_ENGINE_PORT", show_default=True)
@click.option(
    "--token", envvar="SVC_API_TOKEN", default=None, help="The engine's API token, if it has one."
)
async def status(host: str, port: int, token: str | None) -> None:
    """Print the running engine's browser readiness (GET /browser/status)."""
    import httpx

    url = f"http://{host}:{port}/browser/status"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        async with httpx.AsyncClient(timeout=120.0) as client:
            response = await client.get(url, headers=headers)
    except httpx.HTTPError as exc:
        fail(f"browser status failed: cannot reach {url} ({type(exc).__name__})")
    if response.status_code // 100 != 2:
        fail(f"browser status failed: {response.status_code} {response.text.strip()}")
    print_json(response.json())


@browser.command("doctor")
@_STATE_DIR
@_CONFIG
@_JSON
async def doctor(state_dir: Path | None, config_path: Path | None, as_json: bool) -> None:
    """Run local browser diagnostics (the sidecar, the browser, a real launch)."""
    import trio

    from svc.browser.offline import evaluate_offline
    from svc.browser.sidecar.main import text_report

    settings = load_settings(state_dir=state_dir, config_path=config_path)
    status = await trio.to_thread.run_sync(
        evaluate_offline, settings.browser, settings.resolved_state_dir
    )
    if as_json:
        print_json(status.to_wire())
    else:
        click.echo(text_report(status))


@browser.command("install")
@_STATE_DIR
@_CONFIG
@_JSON
async def install(state_dir: Path | None, config_path: Path | None, as_json: bool) -> None:
    """Place the svc-browser sidecar of this engine's version where the engine finds it."""
    import trio

    from svc.browser.errors import InstallFailed
    from svc.browser.install import install_sidecar
    from svc.browser.offline import evaluate_offline

    settings = load_settings(state_dir=state_dir, config_path=config_path)
    try:
        installed = await trio.to_thread.run_sync(
            install_sidecar, settings.browser, settings.resolved_state_dir
        )
    except InstallFailed as exc:
        if as_json:
            print_json({"ok": False, "code": exc.code, "error": exc.message})
            raise SystemExit(1) from None
        fail(exc.message)
    status = await trio.to_thread.run_sync(
        evaluate_offline, settings.browser, settings.resolved_state_dir
    )
    if as_json:
        print_json({**installed, "status": status.to_wire()})
        return
    click.echo(f"Installed {installed['asset_name']} at {installed['installed_path']}")
