"""The browser tools against real headless Chromium and loopback pages."""

from __future__ import annotations

import svc
from tests.fakes.browser_pages import Pages

from .conftest import call_tool


async def open_page(engine: svc.Engine, url: str, session: str = "ses_a") -> str:
    opened = await call_tool(engine, "browser_open", {"url": url}, session=session)
    assert opened.ok, opened.output
    return str(opened.payload["session_id"])


async def test_open_snapshot_click_and_close(browser_engine: svc.Engine, pages: Pages) -> None:
    opened = await call_tool(browser_engine, "browser_open", {"url": pages.url + "/"})
    assert opened.ok, opened.output
    sid = opened.payload["session_id"]
    assert opened.payload["title"] == "Home page"
    assert opened.payload["final_url"] == pages.url + "/"

    first = (await call_tool(browser_engine, "browser_snapshot", {"session_id": sid})).payload
    second = (await call_tool(browser_engine, "browser_snapshot", {"session_id": sid})).payload
    ids = {e["selector_hint"]: e["element_id"] for e in first["elements"]}
    assert "#hidden" not in ids
    assert ids == {e["selector_hint"]: e["element_id"] for e in second["elements"]}
    button = ids["#change"]

    clicked = await call_tool(
        browser_engine,
        "browser_click",
        {
            "session_id": sid,
            "element_id": button,
            "wait_for": {"kind": "text", "value": "Clicked!"},
        },
    )
    assert clicked.ok, clicked.output
    text = await call_tool(
        browser_engine, "browser_extract", {"session_id": sid, "format": "visible_text"}
    )
    assert "Clicked!" in text.payload["content"]

    closed = await call_tool(browser_engine, "browser_close", {"session_id": sid})
    assert closed.payload == {"session_id": sid, "closed": True}
    again = await call_tool(browser_engine, "browser_snapshot", {"session_id": sid})
    assert not again.ok and again.code == "browser_session_not_found"
