"""Real headless Chromium (Debian's ``chromium``) driven by Playwright's sync API.

Playwright's sync API runs its own event loop in the thread that starts it, so
a scenario runs whole in one worker thread (``run_in_browser``) while the
engine keeps serving on the Trio loop; the scenario reaches back into Trio with
``trio.from_thread.run`` when it must (to cut connections, release a model).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
import trio

T = TypeVar("T")

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "webui"


def chromium_path() -> str:
    """The browser binary, or a failure naming the package and the setup command."""
    path = os.environ.get("SVC_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(
            "Chromium is missing: the browser tests need the Debian package `chromium` "
            "(install it with `sh tests/system-packages.sh`, as root)",
            pytrace=False,
        )
    return path


@contextmanager
def open_page(*, width: int = 1280, height: int = 860) -> Iterator[Any]:
    """A fresh browser and page (call from the browser thread)."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS, headless=True
        )
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            page.set_default_timeout(20_000)
            yield page
            context.close()
        finally:
            browser.close()


async def run_in_browser(scenario: Callable[[], T]) -> T:
    """Run ``scenario`` (it opens its own page) in one worker thread while the engine serves."""
    return await trio.to_thread.run_sync(scenario)


def screenshot(page: Any, name: str) -> Path:
    """Write a screenshot under tests/artifacts/webui/ (git-ignored) for a person to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
