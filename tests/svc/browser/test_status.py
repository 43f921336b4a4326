"""Readiness: the blocking-issue codes, the cache, and which tools are offered."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

import svc
from svc.settings import Settings

from .conftest import browser_block, call_tool

RUNNABLE = {
    "browser_open",
    "browser_navigate",
    "browser_snapshot",
    "browser_click",
    "browser_type",
    "browser_press",
    "browser_wait",
    "browser_extract",
    "browser_screenshot",
    "browser_close",
}


async def test_a_runnable_browser_offers_all_eleven_tools(browser_engine: svc.Engine) -> None:
    status = await call_tool(browser_engine, "browser_status", {})
    assert status.payload["runnable"] is True, status.payload
    assert status.payload["sidecar"]["found"] is True
    assert status.payload["sidecar"]["version"] == f"svc-browser {svc.__version__}"
    assert status.payload["browser"]["channel"] in {"chromium", "chrome"}
    assert status.metadata["sidecar_found"] and status.metadata["browser_found"]
    assert RUNNABLE | {"browser_status"} <= set(browser_engine.tools.names())


async def test_disabled_by_default_offers_only_status(engine: svc.Engine) -> None:
    names = set(engine.tools.names())
    assert "browser_status" in names and not names & RUNNABLE
    status = (await engine.browser.status()).to_wire()
    assert status["enabled"] is False and status["runnable"] is False
    assert [i["code"] for i in status["blocking_issues"]] == ["disabled_by_config"]


async def test_no_browser_reports_browser_not_found(
    make_settings: Callable[..., Settings], profiles: Path
) -> None:
    settings = make_settings(
        env={"SVC_BROWSER_EXECUTABLE": "/nowhere/chromium"}, browser=browser_block(profiles)
    )
    async with svc.open_engine(settings) as engine:
        status = (await call_tool(engine, "browser_status", {})).payload
        assert status["runnable"] is False
        assert status["browser"]["found"] is False
        assert "browser_not_found" in [i["code"] for i in status["blocking_issues"]]
        assert not set(engine.tools.names()) & RUNNABLE


async def test_no_sidecar_reports_browser_sidecar_not_found(
    make_settings: Callable[..., Settings], profiles: Path
) -> None:
    settings = make_settings(browser=browser_block(profiles, sidecar_path="/nowhere/svc-browser"))
    async with svc.open_engine(settings) as engine:
        status = (await engine.browser.status()).to_wire()
        assert status["sidecar"] == {"found": False}
        assert status["browser"]["found"] is True
        assert [i["code"] for i in status["blocking_issues"]] == ["browser_sidecar_not_found"]
        assert "SVC_BROWSER_SIDECAR" in status["recommendations"][0]


async def test_root_without_allow_no_sandbox_reports_sandbox_unavailable(
    make_settings: Callable[..., Settings], profiles: Path
) -> None:
    if os.geteuid() != 0:
        pytest.skip("Chromium's sandbox may well work for an ordinary user")
    settings = make_settings(browser=browser_block(profiles, allow_no_sandbox=False))
    async with svc.open_engine(settings) as engine:
        status = (await engine.browser.status()).to_wire()
    assert [i["code"] for i in status["blocking_issues"]] == ["sandbox_unavailable"]
    assert "allow_no_sandbox" in status["recommendations"][0]
    assert "sandbox" in status["last_error"].lower()


async def test_status_is_cached_for_thirty_seconds(browser_engine: svc.Engine) -> None:
    first = await browser_engine.browser.status()
    again = await browser_engine.browser.status()
    assert again is first
    fresh = await browser_engine.browser.status(refresh=True)
    assert fresh is not first and fresh.last_checked_at_ms is not None
