"""The network policy and session ownership, against real Chromium; secrets never leak."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

import svc
from svc.settings import Settings
from tests.fakes.browser_pages import Pages

from .conftest import browser_block, call_tool


async def test_a_redirect_to_a_refused_host_closes_the_session(
    browser_engine: svc.Engine, pages: Pages
) -> None:
    opened = await call_tool(browser_engine, "browser_open", {"url": pages.url + "/"})
    sid = opened.payload["session_id"]
    # The page server redirects to itself under the name `localhost` (not on the allowlist).
    moved = await call_tool(
        browser_engine, "browser_navigate", {"session_id": sid, "url": pages.url + "/redirect-out"}
    )
    assert not moved.ok and moved.code == "host_not_allowed"
    assert len(browser_engine.browser.sessions) == 0
    gone = await call_tool(browser_engine, "browser_snapshot", {"session_id": sid})
    assert gone.code == "browser_session_not_found"

    refused = await call_tool(browser_engine, "browser_open", {"url": pages.url + "/redirect-out"})
    assert not refused.ok and refused.code == "host_not_allowed"
    assert len(browser_engine.browser.sessions) == 0


async def test_urls_outside_the_policy_are_refused_before_any_browser_starts(
    browser_engine: svc.Engine, pages: Pages, profiles: Path
) -> None:
    cases = {
        f"http://localhost:{pages.port}/": "host_blocked",
        "http://10.1.2.3/": "host_blocked",
        "https://example.com/": "host_not_allowed",
        "file:///etc/passwd": "unsupported_url_scheme",
    }
    for url, code in cases.items():
        refused = await call_tool(browser_engine, "browser_open", {"url": url})
        assert (refused.ok, refused.code) == (False, code), url
    assert not profiles.exists() or not any(profiles.iterdir())


async def test_an_empty_allowlist_denies_everything(
    make_settings: Callable[..., Settings], profiles: Path, pages: Pages
) -> None:
    settings = make_settings(browser=browser_block(profiles, allowed_hosts=[]))
    async with svc.open_engine(settings) as engine:
        refused = await call_tool(engine, "browser_open", {"url": pages.url + "/"})
        assert refused.code == "host_not_allowed" and "allowlist is empty" in refused.output


async def test_engine_sessions_cannot_use_each_others_browser_sessions(
    browser_engine: svc.Engine, pages: Pages
) -> None:
    opened = await call_tool(browser_engine, "browser_open", {"url": pages.url + "/"})
    sid = opened.payload["session_id"]
    for tool, args in [
        ("browser_snapshot", {"session_id": sid}),
        ("browser_click", {"session_id": sid, "selector": "#change"}),
        ("browser_close", {"session_id": sid}),
    ]:
        other = await call_tool(browser_engine, tool, args, session="ses_b")
        assert (other.ok, other.code) == (False, "browser_session_forbidden"), tool
        assert "belongs to a different engine session" in other.output
    mine = await call_tool(browser_engine, "browser_close", {"session_id": sid})
    assert mine.payload["closed"] is True


async def test_max_sessions_is_enforced(
    make_settings: Callable[..., Settings], profiles: Path, pages: Pages
) -> None:
    settings = make_settings(browser=browser_block(profiles, max_sessions=1))
    async with svc.open_engine(settings) as engine:
        first = await call_tool(engine, "browser_open", {"url": pages.url + "/"})
        second = await call_tool(engine, "browser_open", {"url": pages.url + "/"}, session="b")
        assert (second.ok, second.code) == (False, "browser_max_sessions")
        await call_tool(engine, "browser_close", {"session_id": first.payload["session_id"]})
        third = await call_tool(engine, "browser_open", {"url": pages.url + "/"}, session="b")
        assert third.ok
        await call_tool(
            engine, "browser_close", {"session_id": third.payload["session_id"]}, session="b"
        )


async def test_secret_ref_is_typed_but_never_shown(
    make_settings: Callable[..., Settings],
    profiles: Path,
    pages: Pages,
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "hunter2-very-secret"
    settings = make_settings(env={"FORM_PASSWORD": secret}, browser=browser_block(profiles))
    caplog.set_level(logging.DEBUG)
    async with svc.open_engine(settings) as engine:
        sid = (await call_tool(engine, "browser_open", {"url": pages.url + "/form"})).payload[
            "session_id"
        ]
        typed = await call_tool(
            engine,
            "browser_type",
            {
                "session_id": sid,
                "selector": "#q",
                "secret_ref": "FORM_PASSWORD",
                "submit": True,
                "wait_for": {"kind": "url", "value": "/result"},
            },
        )
        assert typed.ok and typed.metadata["used_secret_ref"] is True
        # It really was typed: the form submitted it (and the page's URL now holds it).
        assert any(r.param("q") == secret for r in pages.server.requests)
        assert "[REDACTED]" in typed.metadata["url"]
        missing = await call_tool(
            engine, "browser_type", {"session_id": sid, "selector": "#q", "secret_ref": "NOPE"}
        )
        assert missing.code == "secret_ref_missing"
        seen = [typed.output, json.dumps(dict(typed.metadata)), missing.output]
        await call_tool(engine, "browser_close", {"session_id": sid})
    assert all(secret not in text for text in seen)
    assert secret not in caplog.text
