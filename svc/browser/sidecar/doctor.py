"""Browser readiness as seen by the sidecar: find it, ask its version, really launch it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import attrs
import trio

from .. import readiness as r
from ..discovery import channel_of, find_browser, version_of
from .cdp import open_cdp
from .launch import LaunchFailed, LaunchOptions, launch
from .options import SidecarOptions


async def doctor(options: SidecarOptions) -> r.BrowserStatus:
    """Steps: enabled? a browser? its version? a real headless launch opening about:blank?"""
    status = r.BrowserStatus(
        enabled=options.enabled,
        headless_default=options.headless,
        last_checked_at_ms=int(time.time() * 1000),
    )
    if not options.enabled:
        return status.blocked(r.DISABLED, (r.DISABLED_HELP,))
    path = find_browser(options.executable_path)
    if path is None:
        return status.blocked(r.BROWSER_NOT_FOUND, r.BROWSER_NOT_FOUND_HELP, r.install_hints())
    if not os.access(path, os.X_OK):
        return status.blocked(r.NOT_EXECUTABLE, (r.DOCTOR_HELP,))
    found = {"found": True, "path": str(path), "channel": channel_of(path)}
    try:
        found["version"] = await trio.to_thread.run_sync(version_of, path)
    except (OSError, RuntimeError) as exc:
        issue = r.Issue(
            "browser_not_executable",
            f"Found browser executable at `{path}`, but failed to query version: {str(exc)[:200]}",
        )
        return attrs.evolve(status, browser=found).blocked(issue, (r.DOCTOR_HELP,))
    status = attrs.evolve(status, browser=found)
    error = await launch_check(path, options)
    if error is not None:
        issue, recommendations = r.launch_failure(error)
        hints = r.install_hints() if issue is r.MISSING_LIBRARIES else ()
        return attrs.evolve(status.blocked(issue, recommendations, hints), last_error=error)
    return attrs.evolve(status, runnable=True)


async def launch_check(path: Path, options: SidecarOptions) -> str | None:
    """Launch the browser on about:blank and read its ready state; the error text, or None."""
    launch_options = LaunchOptions(
        executable=str(path),
        headless=options.headless,
        no_sandbox=options.allow_no_sandbox,
        temp_root=options.user_data_root,
    )
    try:
        browser = await launch(launch_options, timeout=30.0)
    except LaunchFailed as exc:
        return str(exc)
    try:
        async with open_cdp(browser.ws_url) as cdp:
            targets = await cdp.send("Target.getTargets")
            if not any(t.get("type") == "page" for t in targets.get("targetInfos", [])):
                return "the browser opened no page"
    except Exception as exc:  # any failure to talk to it is a launch failure to report
        return f"{exc} {browser.stderr_text()}".strip()
    finally:
        browser.kill()
    return None
