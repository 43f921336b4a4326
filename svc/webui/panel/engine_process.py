"""The engine the panel talks to: found answering, or started (and later stopped) by the panel.

Shared-engine mode (the default) means one engine on the default port for every
client: the panel reuses it when it answers and otherwise starts it there. With
shared mode off, the panel starts a private engine on a free port. Either way
the panel stops only an engine it started itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import attrs
import httpx
import trio

from ...errors import SvcError
from .config import DEFAULT_ENGINE_PORT, PanelConfig

READY_MARK = b" listening on "
START_TIMEOUT_S = 60.0
STOP_GRACE_S = 15.0


class EngineStartFailed(SvcError):
    code = "ENGINE_START_FAILED"
    status = 502


@attrs.frozen
class EngineLink:
    url: str
    started: bool
    """True when this panel started the engine (and so will stop it)."""
    pid: int | None = None


async def engine_answers(client: httpx.AsyncClient, url: str) -> bool:
    try:
        response = await client.get(f"{url}/global/health", timeout=2.0)
    except httpx.HTTPError:
        return False
    return response.status_code == 200


@asynccontextmanager
async def open_engine_link(
    config: PanelConfig, client: httpx.AsyncClient
) -> AsyncIterator[EngineLink]:
    """The engine to proxy to, for the life of the panel."""
    if not config.auto_start:
        yield EngineLink(config.engine_url, started=False)
        return
    if config.shared:
        if await engine_answers(client, config.engine_url):
            yield EngineLink(config.engine_url, started=False)
            return
        port = urlsplit(config.engine_url).port or DEFAULT_ENGINE_PORT
    else:
        port = 0
    async with _started_engine(config, port) as link:
        yield link


@asynccontextmanager
async def _started_engine(config: PanelConfig, port: int) -> AsyncIterator[EngineLink]:
    env = dict(os.environ)
    if config.engine_token:
        env["SVC_API_TOKEN"] = config.engine_token
    command = [sys.executable, "-m", "cli", "serve", "--port", str(port), "--quiet"]
    process = await trio.lowlevel.open_process(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        async with trio.open_nursery() as nursery:
            ready: trio.MemorySendChannel[str]
            ready, ready_out = trio.open_memory_channel[str](1)
            nursery.start_soon(_watch_stderr, process, ready)
            url = ""
            with trio.move_on_after(START_TIMEOUT_S):
                async for announced in ready_out:
                    url = announced
                    break
            if not url:
                raise EngineStartFailed(
                    f"the engine did not start (exit code {process.returncode}); run "
                    "`svc-engine serve` to see why"
                )
            yield EngineLink(url, started=True, pid=process.pid)
            nursery.cancel_scope.cancel()
    finally:
        # Shielded: the panel is stopping (maybe cancelled), and the engine it
        # started must stop with it, gracefully first.
        with trio.CancelScope(shield=True):
            await _stop(process)


async def _watch_stderr(process: trio.Process, ready: trio.MemorySendChannel[str]) -> None:
    """Find the engine's "listening on <url>" line, then keep draining so the pipe never fills."""
    assert process.stderr is not None
    buffer = b""
    sent = False
    async with ready:
        async for chunk in process.stderr:
            if sent:
                continue
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if READY_MARK in line:
                    await ready.send(line.split(READY_MARK, 1)[1].strip().decode())
                    sent = True


async def _stop(process: trio.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        with trio.move_on_after(STOP_GRACE_S):
            await process.wait()
    if process.returncode is None:
        process.kill()
        await process.wait()
