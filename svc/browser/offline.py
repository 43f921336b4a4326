"""Readiness without a running engine (``svc-engine browser doctor``): the sidecar is found
and asked for its version, then runs its own doctor (``svc-browser doctor --json``) with
the engine's browser configuration."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import attrs

from ..settings import BrowserSettings
from . import readiness as r
from .discovery import Found, channel_of, find_browser, find_sidecar, version_of

DOCTOR_TIMEOUT = 120.0


def evaluate_offline(config: BrowserSettings, state_dir: Path) -> r.BrowserStatus:
    """Blocking: runs subprocesses (the sidecar's doctor launches Chromium)."""
    status = r.BrowserStatus(
        enabled=config.enabled,
        headless_default=config.headless_default,
        last_checked_at_ms=int(time.time() * 1000),
    )
    if not config.enabled:
        return status.blocked(r.DISABLED, (r.DISABLED_HELP,))
    path = find_sidecar(config.sidecar_path, state_dir)
    sidecar = Found(False) if path is None else _sidecar(path)
    if not sidecar.found:
        browser = _browser(config.executable_path)
        status = attrs.evolve(status, sidecar=sidecar.to_wire(), browser=browser.to_wire())
        if not browser.found:
            status = status.blocked(
                r.BROWSER_NOT_FOUND, r.BROWSER_NOT_FOUND_HELP, r.install_hints()
            )
        return status.blocked(r.SIDECAR_NOT_FOUND, r.SIDECAR_NOT_FOUND_HELP)
    assert path is not None
    from .sidecar_process import sidecar_env

    argv = [str(path), "doctor", "--json", "--enabled", "true"]
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=DOCTOR_TIMEOUT,
            env=sidecar_env(config),
            check=False,
        )
        remote = r.BrowserStatus.from_wire(json.loads(done.stdout))
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        issue = r.Issue("browser_launch_failed", f"browser readiness task failed: {exc}")
        return attrs.evolve(status, sidecar=sidecar.to_wire()).blocked(issue, (r.DOCTOR_HELP,))
    return attrs.evolve(
        remote,
        headless_default=config.headless_default,
        sidecar=sidecar.to_wire(),
        last_checked_at_ms=status.last_checked_at_ms,
    )


def _sidecar(path: Path) -> Found:
    try:
        return Found(True, path=str(path), version=version_of(path))
    except (OSError, RuntimeError):
        return Found(False, path=str(path))


def _browser(explicit: str | None) -> Found:
    path = find_browser(explicit)
    if path is None:
        return Found(False)
    try:
        version: str | None = version_of(path)
    except (OSError, RuntimeError):
        version = None
    return Found(True, path=str(path), version=version, channel=channel_of(path))
