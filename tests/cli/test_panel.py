"""``svc-engine panel`` as a real process: auto-start an engine, stop only its own."""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import trio

from .conftest import SCRIPT

READY = re.compile(
    r"panel listening on (http://\S+), engine (http://\S+)( \(started by the panel\))?"
)


@asynccontextmanager
async def open_panel_process(
    env: dict[str, str], cwd: Path
) -> AsyncIterator[tuple[trio.Process, re.Match[str]]]:
    process = await trio.lowlevel.open_process(
        [SCRIPT, "panel", "--port", "0"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=str(cwd),
    )
    try:
        assert process.stderr is not None
        text = ""
        with trio.fail_after(90):
            while not (match := READY.search(text)):
                chunk = await process.stderr.receive_some(4096)
                if not chunk:
                    raise AssertionError(f"panel exited early:\n{text}")
                text += chunk.decode()
        yield process, match
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _healthy(url: str) -> bool:
    async with httpx.AsyncClient() as client:
        try:
            return (await client.get(f"{url}/global/health", timeout=5)).status_code == 200
        except httpx.HTTPError:
            return False


async def _stop(process: trio.Process) -> int:
    process.send_signal(signal.SIGTERM)
    with trio.fail_after(60):
        return await process.wait()


async def test_panel_starts_a_private_engine_and_stops_it_on_exit(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**cli_env, "SVC_CONTROL_PANEL_AUTO_START_ENGINE": "1", "SVC_SHARED_ENGINE_MODE": "0"}
    async with open_panel_process(env, tmp_path / "ws") as (process, ready):
        panel_url, engine_url, started = ready.groups()
        assert started
        assert await _healthy(engine_url)
        assert await _healthy(f"{panel_url}/engine")
        assert await _stop(process) == 0
    assert not await _healthy(engine_url)


async def test_panel_reuses_a_running_engine_and_leaves_it_running(
    cli_env: dict[str, str], tmp_path: Path, served: Callable
) -> None:
    engine = await served()
    env = {**cli_env, "SVC_CONTROL_PANEL_AUTO_START_ENGINE": "1", "SVC_ENGINE_URL": engine.url}
    async with open_panel_process(env, tmp_path / "ws") as (process, ready):
        panel_url, engine_url, started = ready.groups()
        assert (engine_url, started) == (engine.url, None)
        assert await _healthy(f"{panel_url}/engine")
        assert await _stop(process) == 0
    assert await _healthy(engine.url)


async def test_panel_refuses_a_public_bind_without_its_own_token(run_cli: Callable) -> None:
    result = await run_cli("panel", "--host", "0.0.0.0", "--port", "0")
    assert result.returncode == 2
    assert b"SVC_CONTROL_PANEL_TOKEN" in result.stderr
