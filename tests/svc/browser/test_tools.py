"""The browser tools against real headless Chromium and loopback pages."""

from __future__ import annotations

from pathlib import Path

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


async def test_type_into_a_form_and_submit(browser_engine: svc.Engine, pages: Pages) -> None:
    sid = await open_page(browser_engine, pages.url + "/form")
    typed = await call_tool(
        browser_engine,
        "browser_type",
        {
            "session_id": sid,
            "selector": "#q",
            "text": "trio actors",
            "submit": True,
            "wait_for": {"kind": "url", "value": "/result"},
        },
    )
    assert typed.ok, typed.output
    waited = await call_tool(
        browser_engine, "browser_wait", {"session_id": sid, "text": "You searched: trio actors"}
    )
    assert waited.ok, waited.output
    assert waited.metadata["url"].startswith(pages.url + "/result?q=trio+actors")
    await call_tool(browser_engine, "browser_close", {"session_id": sid})


async def test_press_sends_a_real_key_event(browser_engine: svc.Engine, pages: Pages) -> None:
    sid = await open_page(browser_engine, pages.url + "/keys")
    await call_tool(browser_engine, "browser_click", {"session_id": sid, "selector": "#field"})
    pressed = await call_tool(
        browser_engine,
        "browser_press",
        {"session_id": sid, "key": "Enter", "wait_for": {"kind": "text", "value": "key:Enter"}},
    )
    assert pressed.ok, pressed.output
    await call_tool(browser_engine, "browser_press", {"session_id": sid, "key": "x"})
    typed = await call_tool(
        browser_engine, "browser_extract", {"session_id": sid, "format": "visible_text"}
    )
    assert "key:x" in typed.payload["content"]
    await call_tool(browser_engine, "browser_close", {"session_id": sid})


async def test_wait_on_each_condition_kind_and_alias(
    browser_engine: svc.Engine, pages: Pages
) -> None:
    sid = await open_page(browser_engine, pages.url + "/delayed")
    shapes = [
        {"session_id": sid, "condition": {"kind": "selector", "value": "#late"}},
        {"sessionId": sid, "wait_for": {"kind": "text", "value": "Ready now"}},
        {"session_id": sid, "waitFor": {"type": "url", "url": "done=1"}, "timeoutMs": 5000},
        {"session_id": sid, "kind": "text", "value": "Ready"},
        {"session_id": sid, "selector": "#late"},
        {"session_id": sid, "text": "Ready now"},
        {"session_id": sid, "url": "/delayed"},
        {"session_id": sid, "condition": {"kind": "navigation"}},
        {"session_id": sid, "condition": {"kind": "network_idle"}},
    ]
    for args in shapes:
        waited = await call_tool(browser_engine, "browser_wait", args)
        assert waited.ok, (args, waited.output)

    timed_out = await call_tool(
        browser_engine,
        "browser_wait",
        {"session_id": sid, "selector": "#never", "timeout_ms": 250},
    )
    assert not timed_out.ok and "timed out waiting for `selector`" in timed_out.output
    no_kind = await call_tool(browser_engine, "browser_wait", {"session_id": sid})
    assert not no_kind.ok and no_kind.code == "invalid_arguments"
    await call_tool(browser_engine, "browser_close", {"session_id": sid})


async def test_network_idle_waits_for_requests_in_flight(
    browser_engine: svc.Engine, pages: Pages
) -> None:
    sid = await open_page(browser_engine, pages.url + "/fetching")
    # /slow is held: the page is loaded but not quiet, so network_idle cannot be met yet.
    held = await call_tool(
        browser_engine,
        "browser_wait",
        {"session_id": sid, "condition": {"kind": "network_idle"}, "timeout_ms": 300},
    )
    assert not held.ok and "network_idle" in held.output
    pages.slow_gate.set()
    quiet = await call_tool(
        browser_engine, "browser_wait", {"session_id": sid, "condition": {"kind": "network_idle"}}
    )
    assert quiet.ok, quiet.output
    text = await call_tool(browser_engine, "browser_extract", {"session_id": sid, "format": "text"})
    assert "slow done" in text.payload["content"]
    await call_tool(browser_engine, "browser_close", {"session_id": sid})


async def test_extract_text_markdown_html_and_a_large_page_as_artifact(
    browser_engine: svc.Engine, pages: Pages
) -> None:
    sid = await open_page(browser_engine, pages.url + "/")
    markdown = await call_tool(
        browser_engine, "browser_extract", {"session_id": sid, "format": "markdown"}
    )
    assert "# Welcome" in markdown.payload["content"]
    assert "[Next page](/next)" in markdown.payload["content"]
    page_html = await call_tool(
        browser_engine, "browser_extract", {"session_id": sid, "format": "html"}
    )
    assert page_html.payload["content"].startswith("<html")
    assert page_html.metadata["artifact"] is False

    await call_tool(
        browser_engine, "browser_navigate", {"session_id": sid, "url": pages.url + "/large"}
    )
    large = await call_tool(
        browser_engine, "browser_extract", {"session_id": sid, "format": "text"}
    )
    assert large.payload["content"] is None and large.metadata["artifact"] is True
    artifact = large.payload["artifact"]
    stored = Path(artifact["uri"]).read_text()
    assert artifact["kind"] == "extract" and artifact["uri"].endswith(".txt")
    assert "Paragraph 399" in stored and len(stored.encode()) > 24_000
    await call_tool(browser_engine, "browser_close", {"session_id": sid})


async def test_screenshot_is_a_real_png_artifact(browser_engine: svc.Engine, pages: Pages) -> None:
    sid = await open_page(browser_engine, pages.url + "/")
    shot = await call_tool(
        browser_engine, "browser_screenshot", {"session_id": sid, "label": "home"}
    )
    assert shot.ok, shot.output
    artifact = shot.payload["artifact"]
    data = Path(artifact["uri"]).read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert shot.metadata["artifact_id"] == artifact["artifact_id"]
    assert artifact["label"] == "home" and artifact["kind"] == "screenshot"
    snap = await call_tool(
        browser_engine, "browser_snapshot", {"session_id": sid, "include_screenshot": True}
    )
    assert "screenshot_base64" not in snap.payload
    snapshot_png = Path(snap.payload["screenshot_artifact"]["uri"]).read_bytes()
    assert snapshot_png.startswith(b"\x89PNG")
    await call_tool(browser_engine, "browser_close", {"session_id": sid})
