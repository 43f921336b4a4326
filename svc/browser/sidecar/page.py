"""One page of one browser, driven over the DevTools protocol.

Navigation waits for the main frame's load event; ``network_idle`` waits for
real network quiet: no request in flight (from the ``Network`` domain's events)
for 500 ms. Clicks and key presses are real input events (``Input.*``); reads
of the page evaluate small scripts (:mod:`.scripts`).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from typing import Any

import trio

from .cdp import CdpConnection, CdpError
from .errors import InvalidParams, SelectorNotFound, SidecarError
from .keys import key_events
from .scripts import (
    BODY_TEXT,
    CENTRE,
    CLEAR,
    EXISTS,
    LOCATION,
    OUTER_HTML,
    SNAPSHOT,
    SUBMIT,
    call,
    element_selector,
)

QUIET_SECONDS = 0.5
POLL_SECONDS = 0.1
NAVIGATION_TIMEOUT = 20.0
_ELEMENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Requests that stay open by design never let a page fall quiet.
_LONG_LIVED = {"EventSource", "WebSocket"}


class Page:
    """A page target attached through a flattened session of ``connection``."""

    def __init__(self, connection: CdpConnection, session_id: str) -> None:
        self.cdp = connection
        self.session_id = session_id
        self.loads = 0
        self._inflight: set[str] = set()
        self._quiet_since = trio.current_time()
        self._changed = trio.Event()
        connection.listen(session_id, self._on_event)

    @classmethod
    async def attach(cls, connection: CdpConnection, *, width: int, height: int) -> Page:
        targets = await connection.send("Target.getTargets")
        page_ids = [t["targetId"] for t in targets["targetInfos"] if t.get("type") == "page"]
        if page_ids:
            target_id = page_ids[0]
        else:
            created = await connection.send("Target.createTarget", {"url": "about:blank"})
            target_id = created["targetId"]
        attached = await connection.send(
            "Target.attachToTarget", {"targetId": target_id, "flatten": True}
        )
        page = cls(connection, attached["sessionId"])
        for method in ("Page.enable", "Network.enable", "Runtime.enable"):
            await page.send(method)
        await page.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        return page

    async def send(
        self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float = 30.0
    ) -> dict[str, Any]:
        try:
            return await self.cdp.send(method, params, session_id=self.session_id, timeout=timeout)
        except CdpError as exc:
            raise SidecarError(str(exc)) from None

    # ------------------------------------------------------------------ events
    def _on_event(self, method: str, params: Mapping[str, Any]) -> None:
        if method == "Network.requestWillBeSent":
            if params.get("type") not in _LONG_LIVED:
                self._inflight.add(params["requestId"])
        elif method in ("Network.loadingFinished", "Network.loadingFailed"):
            self._inflight.discard(params.get("requestId", ""))
            if not self._inflight:
                self._quiet_since = trio.current_time()
        elif method == "Page.loadEventFired":
            self.loads += 1
        else:
            return
        self._changed.set()
        self._changed = trio.Event()

    async def _wait_change(self, limit: float | None = None) -> None:
        changed = self._changed
        if limit is None:
            await changed.wait()
        else:
            with trio.move_on_after(max(limit, 0)):
                await changed.wait()

    async def wait_load(self, after: int, timeout: float) -> None:
        """Until the main frame fired its load event more than ``after`` times."""
        with trio.move_on_after(timeout) as scope:
            while self.loads <= after:
                await self._wait_change()
        if scope.cancelled_caught:
            raise SidecarError("timed out waiting for `navigation` condition")

    async def wait_network_idle(self, timeout: float) -> None:
        with trio.move_on_after(timeout) as scope:
            while True:
                if self._inflight:
                    await self._wait_change()
                    continue
                remaining = self._quiet_since + QUIET_SECONDS - trio.current_time()
                if remaining <= 0:
                    return
                await self._wait_change(remaining)
        if scope.cancelled_caught:
            raise SidecarError("timed out waiting for `network_idle` condition")

    # ------------------------------------------------------------------ reads
    async def evaluate(self, expression: str, *, timeout: float = 30.0) -> Any:
        reply = await self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise SidecarError(f"page script failed: {text}")
        return reply.get("result", {}).get("value")

    async def location(self) -> dict[str, Any]:
        return dict(await self.evaluate(call(LOCATION)) or {})

    async def snapshot(self, max_elements: int) -> dict[str, Any]:
        return dict(await self.evaluate(call(SNAPSHOT, max_elements)))

    async def body_text(self) -> str:
        return str(await self.evaluate(call(BODY_TEXT)) or "")

    async def outer_html(self) -> str:
        return str(await self.evaluate(call(OUTER_HTML)) or "")

    async def screenshot(self, *, full_page: bool) -> bytes:
        params: dict[str, Any] = {"format": "png", "fromSurface": True}
        if full_page:
            metrics = await self.send("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": size["height"],
                "scale": 1,
            }
            params["captureBeyondViewport"] = True
        reply = await self.send("Page.captureScreenshot", params, timeout=60.0)
        return base64.b64decode(reply["data"])

    # ------------------------------------------------------------------ actions
    async def navigate(self, url: str, *, wait_until: str | None, timeout: float) -> None:
        before = self.loads
        reply = await self.send("Page.navigate", {"url": url}, timeout=timeout)
        if reply.get("errorText"):
            raise SidecarError(f"navigation_failed: {reply['errorText']} ({url})")
        if reply.get("loaderId"):
            # A new document loads; a same-document navigation (a fragment) has no load.
            await self.wait_load(before, timeout)
        if wait_until == "network_idle":
            await self.wait_network_idle(timeout)

    async def wait_for(
        self, kind: str, value: str | None, *, timeout: float, loads_before: int | None = None
    ) -> None:
        """Wait for one condition (``selector``, ``text``, ``url``, ``navigation``,
        ``network_idle``); ``loads_before`` is the load count before the action it follows."""
        if kind in ("selector", "text", "url"):
            if not value:
                raise InvalidParams(f"wait_for.{kind} requires condition.value")
            probe = {
                "selector": call(EXISTS, value),
                "text": f"(document.body ? document.body.innerText : '').includes({_js(value)})",
                "url": f"location.href.includes({_js(value)})",
            }[kind]
            with trio.move_on_after(timeout):
                while True:
                    try:
                        if await self.evaluate(probe, timeout=timeout):
                            return
                    except SidecarError:
                        pass  # the page is between documents; ask again
                    # The page offers no change notification for these conditions.
                    await trio.sleep(POLL_SECONDS)
            raise SidecarError(f"timed out waiting for `{kind}` condition")
        if kind == "navigation":
            if loads_before is not None:
                await self.wait_load(loads_before, timeout)
                return
            with trio.move_on_after(timeout):
                while (await self.location()).get("ready") != "complete":
                    await self._wait_change(POLL_SECONDS)
                return
            raise SidecarError("timed out waiting for `navigation` condition")
        if kind == "network_idle":
            await self.wait_network_idle(timeout)
            return
        raise InvalidParams(f"unsupported wait condition kind `{kind}`")

    async def _centre(self, selector: str, timeout: float) -> tuple[float, float]:
        with trio.move_on_after(timeout):
            while True:
                found = await self.evaluate(call(CENTRE, selector))
                if found is not None:
                    return float(found["x"]), float(found["y"])
                # Wait for the element to appear, as a user would.
                await trio.sleep(POLL_SECONDS)
        raise SelectorNotFound(selector)

    async def click(self, selector: str, *, timeout: float) -> None:
        x, y = await self._centre(selector, timeout)
        base = {"x": x, "y": y, "button": "left", "clickCount": 1}
        await self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        await self.send("Input.dispatchMouseEvent", {**base, "type": "mousePressed"})
        await self.send("Input.dispatchMouseEvent", {**base, "type": "mouseReleased"})

    async def type_text(
        self, selector: str, text: str, *, replace: bool, submit: bool, timeout: float
    ) -> None:
        if replace and not await self.evaluate(call(CLEAR, selector)):
            raise SelectorNotFound(selector)
        await self.click(selector, timeout=timeout)
        await self.send("Input.insertText", {"text": text})
        if submit and not await self.evaluate(call(SUBMIT, selector)):
            raise SelectorNotFound(selector)

    async def press(self, key: str) -> None:
        try:
            events = key_events(key)
        except ValueError as exc:
            raise InvalidParams(str(exc)) from None
        for event in events:
            await self.send("Input.dispatchKeyEvent", event)


def selector_for(params: Mapping[str, Any]) -> str:
    element_id = params.get("element_id")
    if element_id:
        if not isinstance(element_id, str) or not _ELEMENT_ID.match(element_id):
            raise InvalidParams("element_id must be an id from a snapshot")
        return element_selector(element_id)
    selector = params.get("selector")
    if isinstance(selector, str) and selector.strip():
        return selector
    raise InvalidParams("either element_id or selector is required")


def _js(value: str) -> str:
    return json.dumps(value)
