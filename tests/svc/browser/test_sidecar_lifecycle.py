"""The sidecar's life: killed mid-session, respawned, the call retried; no browser outlives it."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import trio

import svc
from svc.browser.sidecar.launch import alive_pids_with
from svc.settings import Settings
from tests.fakes.browser_pages import Pages

from .conftest import browser_block, call_tool
from .procs import children_running, wait_gone


async def test_a_killed_sidecar_is_respawned_and_the_call_retried_once(
    browser_engine: svc.Engine, pages: Pages, profiles: Path
) -> None:
    first = await call_tool(browser_engine, "browser_open", {"url": pages.url + "/"})
    first_id = first.payload["session_id"]
    [sidecar] = children_running("svc-browser")
    first_browsers = alive_pids_with(str(profiles))
    assert first_browsers

    pages.open_gate = trio.Event()
    results = []

    async def open_gated() -> None:
        results.append(
            await call_tool(browser_engine, "browser_open", {"url": pages.url + "/gated"})
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(open_gated)
        await pages.gated_asked.wait()
        # The sidecar dies while the open is in flight (its browser is loading the page).
        os.kill(sidecar, signal.SIGKILL)
        await wait_gone([sidecar])
        pages.open_gate.set()

    [retried] = results
    assert retried.ok, retried.output
    assert retried.payload["title"] == "Gated"
    [respawned] = children_running("svc-browser")
    assert respawned != sidecar
    # The browsers of the dead sidecar died with it, even though it was SIGKILLed.
    await wait_gone(first_browsers)

    lost = await call_tool(browser_engine, "browser_snapshot", {"session_id": first_id})
    assert not lost.ok and lost.code == "browser_session_lost"
    await call_tool(browser_engine, "browser_close", {"session_id": retried.payload["session_id"]})


async def test_closing_the_engine_ends_the_sidecar_and_every_browser(
    browser_settings: svc.Settings, pages: Pages, profiles: Path
) -> None:
    async with svc.open_engine(browser_settings) as engine:
        await call_tool(engine, "browser_open", {"url": pages.url + "/"})
        await call_tool(engine, "browser_open", {"url": pages.url + "/next"}, session="ses_b")
        sidecars = children_running("svc-browser")
        browsers = alive_pids_with(str(profiles))
        assert sidecars and browsers
    await wait_gone(sidecars + browsers)


async def test_an_idle_session_is_closed(
    make_settings: Callable[..., Settings], pages: Pages, profiles: Path
) -> None:
    settings = make_settings(browser=browser_block(profiles, idle_timeout_ms=1_000))
    async with svc.open_engine(settings) as engine:
        opened = await call_tool(engine, "browser_open", {"url": pages.url + "/"})
        browsers = alive_pids_with(str(profiles))
        # The reaper closes it after a second unused: its browser process ends.
        await wait_gone(browsers)
        assert len(engine.browser.sessions) == 0
        idle = await call_tool(
            engine, "browser_snapshot", {"session_id": opened.payload["session_id"]}
        )
        assert idle.code == "browser_session_not_found"


async def test_concurrent_sessions_run_on_one_sidecar(
    make_settings: Callable[..., Settings], pages: Pages, profiles: Path
) -> None:
    settings = make_settings(browser=browser_block(profiles, max_sessions=6))
    async with svc.open_engine(settings) as engine:
        [sidecar] = children_running("svc-browser")
        failures: list[str] = []

        async def one(index: int) -> None:
            owner = f"ses_{index}"
            opened = await call_tool(
                engine, "browser_open", {"url": pages.url + "/"}, session=owner
            )
            if not opened.ok:
                failures.append(opened.output)
                return
            sid = opened.payload["session_id"]
            for tool in ("browser_snapshot", "browser_close"):
                done = await call_tool(engine, tool, {"session_id": sid}, session=owner)
                if not done.ok:
                    failures.append(done.output)

        async with trio.open_nursery() as nursery:
            for index in range(6):
                nursery.start_soon(one, index)
        assert failures == []
        # Closing six browsers at once under load once crashed the sidecar (a websocket
        # close handshake timing out); the same sidecar must still be serving.
        assert children_running("svc-browser") == [sidecar]
