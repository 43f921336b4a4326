"""The smoke test behind ``POST /browser/smoke-test``: open, snapshot, extract, close.

Unlike the reference, it obeys the network policy like every other browser use:
a URL outside the allowlist fails the test instead of being fetched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actions import BrowserActions
from .errors import BrowserError, SmokeTestFailed

if TYPE_CHECKING:
    from .service import BrowserService

DEFAULT_URL = "https://example.com"
OWNER = "__browser_smoke_test__"
EXCERPT_CHARS = 400


async def smoke_test(service: BrowserService, url: str | None) -> dict[str, Any]:
    status = await service.status()
    if not status.runnable:
        raise SmokeTestFailed(
            "browser_not_runnable: run browser doctor first; current status is not runnable",
            ok=False,
        )
    url = url or DEFAULT_URL
    actions = BrowserActions(service)
    try:
        opened = await actions.open(OWNER, url, {"wait_until": "navigation"})
    except BrowserError as exc:
        raise SmokeTestFailed(exc.message, ok=False) from None
    session_id = opened["session_id"]
    closed = False
    try:
        snapshot = await actions.read(OWNER, session_id, "browser.snapshot", {"max_elements": 25})
        text = await actions.read(
            OWNER, session_id, "browser.extract", {"format": "visible_text", "max_bytes": 4000}
        )
    except BrowserError as exc:
        raise SmokeTestFailed(exc.message, ok=False) from None
    finally:
        closed = await service.close_quietly(session_id)
    content = str(text.get("content") or "")
    excerpt = content if len(content) <= EXCERPT_CHARS else content[:EXCERPT_CHARS] + "..."
    return {
        "ok": True,
        "status": status.to_wire(),
        "url": url,
        "final_url": opened.get("final_url"),
        "title": opened.get("title"),
        "load_state": snapshot.get("load_state"),
        "element_count": len(snapshot.get("elements") or ()),
        "excerpt": excerpt,
        "closed": closed,
    }
