"""A browser session: one Chromium process, its DevTools connection and its page.

Each session runs as a task of the server's nursery (the connection's reader
lives there); :func:`run_session` hands the :class:`BrowserSession` back with
``task_status.started`` and keeps the browser until the session is closed or
the task is cancelled. Whatever ends it, the browser's process group is killed
in ``finally``.
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import attrs
import trio

from .cdp import CdpError, open_cdp
from .errors import SidecarError
from .launch import Chromium, LaunchFailed, LaunchOptions, launch
from .page import Page


@attrs.define(eq=False)
class BrowserSession:
    session_id: str
    browser: Chromium
    page: Page
    browser_version: str | None
    headless: bool
    viewport: dict[str, int]
    closed: trio.Event = attrs.field(factory=trio.Event)
    ended: trio.Event = attrs.field(factory=trio.Event)
    """Set once the browser process is gone."""

    def close(self) -> None:
        self.closed.set()


def new_session_id() -> str:
    return f"browser-{uuid.uuid4()}"


async def run_session(
    options: LaunchOptions,
    session_id: str,
    *,
    task_status: trio.TaskStatus[BrowserSession] = trio.TASK_STATUS_IGNORED,
) -> None:
    try:
        browser = await launch(options)
    except LaunchFailed as exc:
        raise SidecarError(f"browser_launch_failed: {exc}") from None
    session: BrowserSession | None = None
    try:
        async with open_cdp(browser.ws_url) as cdp:
            try:
                version = await cdp.send("Browser.getVersion")
                page = await Page.attach(cdp, width=options.width, height=options.height)
            except CdpError as exc:
                raise SidecarError(f"browser_launch_failed: {exc}") from None
            session = BrowserSession(
                session_id=session_id,
                browser=browser,
                page=page,
                browser_version=version.get("product"),
                headless=options.headless,
                viewport={"width": options.width, "height": options.height},
            )
            task_status.started(session)
            await session.closed.wait()
            # Killed before the websocket closes: a browser under load may not answer a
            # close handshake for seconds, and its connection is of no further use.
            browser.kill()
    except Exception as exc:
        if session is None:
            raise  # the opening request reports it
        # A session that breaks after it opened must not take the sidecar (and every
        # other session) down with it: it ends alone, and says why on stderr.
        print(f"browser session {session_id} ended: {exc!r}", file=sys.stderr, flush=True)
    finally:
        # Ends the browser whether the session was closed, failed or the sidecar stops.
        browser.kill()
        if session is not None:
            session.ended.set()


def profile_dir(user_data_root: Path | None, profile_id: str | None) -> Path | None:
    """The persistent profile for ``profile_id`` (characters outside ``[A-Za-z0-9._-]``
    become ``_``), or None for a temporary one."""
    if not profile_id:
        return None
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in profile_id)
    if safe in ("", ".", ".."):
        safe = "_"
    return (user_data_root or default_user_data_root()) / safe


def default_user_data_root() -> Path:
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "svc" / "browser"
