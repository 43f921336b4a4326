"""The thirteen JSON-RPC methods, over the sessions this sidecar holds."""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import trio

from ..._version import __version__
from ..discovery import find_browser
from ..readiness import PROTOCOL_VERSION
from .doctor import doctor
from .errors import InvalidParams, SessionNotFound, SidecarError
from .launch import LaunchOptions
from .options import SidecarOptions
from .page import NAVIGATION_TIMEOUT, selector_for
from .session import BrowserSession, new_session_id, profile_dir, run_session

WAIT_DEFAULT_MS = 15_000
EXTRACT_DEFAULT_BYTES = 256_000
Handler = Callable[[Mapping[str, Any]], Awaitable[dict[str, Any]]]


def _bool(params: Mapping[str, Any], key: str, default: bool) -> bool:
    value = params.get(key)
    return default if value is None else bool(value)


def _int(params: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = params.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidParams(f"`{key}` must be an integer")
    return max(low, min(high, value))


def _str(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidParams(f"`{key}` is required")
    return value


def _timeout(params: Mapping[str, Any], default_ms: int = WAIT_DEFAULT_MS) -> float:
    return _int(params, "timeout_ms", default_ms, 250, 120_000) / 1000


def _http_url(url: str) -> str:
    if not url.lower().startswith(("http://", "https://")):
        raise SidecarError(
            "unsupported_url_scheme: unsupported URL scheme; only http and https are allowed"
        )
    return url


class Methods:
    """Method name -> handler; the sessions live in ``nursery`` (the server's)."""

    def __init__(self, options: SidecarOptions, nursery: trio.Nursery) -> None:
        self.options = options
        self.nursery = nursery
        self.sessions: dict[str, BrowserSession] = {}
        self.table: dict[str, Handler] = {
            "browser.version": self.version,
            "browser.ping": self.ping,
            "browser.doctor": self.doctor,
            "browser.open": self.open_session,
            "browser.navigate": self.navigate,
            "browser.snapshot": self.snapshot,
            "browser.click": self.click,
            "browser.type": self.type_into,
            "browser.press": self.press,
            "browser.wait": self.wait,
            "browser.extract": self.extract,
            "browser.screenshot": self.screenshot,
            "browser.close": self.close,
        }

    def session(self, params: Mapping[str, Any]) -> BrowserSession:
        session_id = _str(params, "session_id")
        found = self.sessions.get(session_id)
        if found is None:
            raise SessionNotFound(session_id)
        return found

    def close_all(self) -> None:
        for session in list(self.sessions.values()):
            session.close()
        self.sessions.clear()

    async def version(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"protocol_version": PROTOCOL_VERSION, "sidecar_version": __version__}

    async def ping(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"ok": True}

    async def doctor(self, params: Mapping[str, Any]) -> dict[str, Any]:
        options = SidecarOptions(
            enabled=_bool(params, "enabled", True),
            executable_path=params.get("executable_path") or self.options.executable_path,
            user_data_root=Path(params["user_data_root"])
            if params.get("user_data_root")
            else self.options.user_data_root,
            allow_no_sandbox=_bool(params, "allow_no_sandbox", self.options.allow_no_sandbox),
            headless=_bool(params, "headless_default", self.options.headless),
        )
        return (await doctor(options)).to_wire()

    async def open_session(self, params: Mapping[str, Any]) -> dict[str, Any]:
        url = _http_url(_str(params, "url"))
        headless = _bool(params, "headless", _bool(params, "headless_default", True))
        if not headless and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            raise SidecarError(
                "headed_mode_unavailable: no DISPLAY or WAYLAND_DISPLAY is available"
            )
        executable = find_browser(params.get("executable_path") or self.options.executable_path)
        if executable is None:
            raise SidecarError("browser_not_found: no Chromium executable found")
        viewport = params.get("viewport") or {}
        width = _int(viewport, "width", 1280, 1, 10_000)
        height = _int(viewport, "height", 800, 1, 10_000)
        root = params.get("user_data_root")
        user_data_root = Path(root) if root else self.options.user_data_root
        options = LaunchOptions(
            executable=str(executable),
            headless=headless,
            no_sandbox=_bool(params, "allow_no_sandbox", False) or self.options.allow_no_sandbox,
            width=width,
            height=height,
            profile_dir=profile_dir(user_data_root, params.get("profile_id")),
            temp_root=user_data_root,
        )
        session_id = new_session_id()
        session: BrowserSession = await self.nursery.start(run_session, options, session_id)
        self.sessions[session_id] = session
        try:
            await session.page.navigate(
                url, wait_until=params.get("wait_until"), timeout=NAVIGATION_TIMEOUT
            )
            where = await session.page.location()
        except BaseException:
            self.sessions.pop(session_id, None)
            session.close()
            raise
        return {
            "session_id": session_id,
            "final_url": where.get("url"),
            "title": where.get("title"),
            "browser_version": session.browser_version,
            "headless": headless,
            "viewport": session.viewport,
        }

    async def navigate(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session = self.session(params)
        url = _http_url(_str(params, "url"))
        await session.page.navigate(
            url, wait_until=params.get("wait_until"), timeout=NAVIGATION_TIMEOUT
        )
        where = await session.page.location()
        return {
            "session_id": session.session_id,
            "final_url": where.get("url"),
            "title": where.get("title"),
        }

    async def snapshot(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session = self.session(params)
        started = time.monotonic()
        found = await session.page.snapshot(_int(params, "max_elements", 50, 1, 200))
        elapsed = int((time.monotonic() - started) * 1000)
        result = {
            "session_id": session.session_id,
            "url": found.get("url"),
            "title": found.get("title"),
            "load_state": found.get("load_state"),
            "viewport": session.viewport,
            "elements": found.get("elements", []),
            "notices": [f"snapshot_completed_in_ms={elapsed}"],
        }
        if _bool(params, "include_screenshot", False):
            png = await session.page.screenshot(full_page=False)
            result["screenshot_base64"] = base64.b64encode(png).decode()
        return result

    async def _action(
        self, session: BrowserSession, started: float, params: Mapping[str, Any], loads: int
    ) -> dict[str, Any]:
        wait_for = params.get("wait_for")
        if isinstance(wait_for, Mapping) and wait_for.get("kind"):
            await session.page.wait_for(
                str(wait_for["kind"]),
                wait_for.get("value"),
                timeout=_timeout(params),
                loads_before=loads,
            )
        where = await session.page.location()
        return {
            "session_id": session.session_id,
            "success": True,
            "elapsed_ms": int((time.monotonic() - started) * 1000),
            "final_url": where.get("url"),
            "title": where.get("title"),
        }

    async def click(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session, started = self.session(params), time.monotonic()
        loads = session.page.loads
        await session.page.click(selector_for(params), timeout=_timeout(params, 5_000))
        return await self._action(session, started, params, loads)

    async def type_into(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session, started = self.session(params), time.monotonic()
        loads = session.page.loads
        text = params.get("text")
        if not isinstance(text, str):
            raise InvalidParams("`text` is required")
        await session.page.type_text(
            selector_for(params),
            text,
            replace=_bool(params, "replace", False),
            submit=_bool(params, "submit", False),
            timeout=_timeout(params, 5_000),
        )
        return await self._action(session, started, params, loads)

    async def press(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session, started = self.session(params), time.monotonic()
        loads = session.page.loads
        await session.page.press(_str(params, "key"))
        return await self._action(session, started, params, loads)

    async def wait(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session, started = self.session(params), time.monotonic()
        condition = params.get("condition")
        if not isinstance(condition, Mapping) or not condition.get("kind"):
            raise InvalidParams("browser.wait requires condition.kind")
        await session.page.wait_for(
            str(condition["kind"]), condition.get("value"), timeout=_timeout(params)
        )
        return await self._action(session, started, {}, session.page.loads)

    async def extract(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session = self.session(params)
        fmt = params.get("format") or "visible_text"
        if fmt in ("visible_text", "text"):
            fmt, content = "visible_text", await session.page.body_text()
        elif fmt == "html":
            content = await session.page.outer_html()
        elif fmt == "markdown":
            content = await _markdown(await session.page.outer_html())
        else:
            raise InvalidParams(f"unsupported extract format `{fmt}`")
        limit = _int(params, "max_bytes", EXTRACT_DEFAULT_BYTES, 1024, 2_000_000)
        data = content.encode()
        truncated = len(data) > limit
        if truncated:
            content = data[:limit].decode("utf-8", "ignore")
        return {
            "session_id": session.session_id,
            "format": fmt,
            "content": content,
            "truncated": truncated,
        }

    async def screenshot(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session = self.session(params)
        png = await session.page.screenshot(full_page=_bool(params, "full_page", False))
        result: dict[str, Any] = {
            "session_id": session.session_id,
            "mime_type": "image/png",
            "data_base64": base64.b64encode(png).decode(),
            "bytes": len(png),
        }
        if params.get("label") is not None:
            result["label"] = params["label"]
        return result

    async def close(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session_id = _str(params, "session_id")
        session = self.sessions.pop(session_id, None)
        if session is not None:
            session.close()
            # Closing is done when the browser process is gone.
            await session.ended.wait()
        return {"session_id": session_id, "closed": session is not None}


async def _markdown(html: str) -> str:
    from ...tools.markdown import html_to_markdown

    # BeautifulSoup on a large page takes a while: off the Trio thread.
    return await trio.to_thread.run_sync(html_to_markdown, html)
