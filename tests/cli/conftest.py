"""CLI tests run the real ``svc-engine`` console script in a subprocess."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import attrs
import pytest
import trio

SCRIPT = str(Path(sys.executable).parent / "svc-engine")


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "SVC_STATE_DIR": str(tmp_path / "state"),
        "SVC_WORKSPACE": str(tmp_path / "ws"),
        "PYTHONUNBUFFERED": "1",
    }
    (tmp_path / "ws").mkdir(exist_ok=True)
    return env


@pytest.fixture
def run_cli(cli_env: dict[str, str], tmp_path: Path) -> Callable[..., trio.Process]:
    async def run(
        *args: str,
        env: dict[str, str] | None = None,
        stdin: bytes = b"",
        check: bool = False,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        with trio.fail_after(120):
            return await trio.run_process(
                [SCRIPT, *args],
                env={**cli_env, **(env or {})},
                stdin=stdin,
                capture_stdout=True,
                capture_stderr=True,
                check=check,
                cwd=str(cwd or tmp_path / "ws"),
            )

    return run


@attrs.define
class Server:
    process: trio.Process
    url: str
    port: int
    stderr_lines: list[str]


@pytest.fixture
async def served(cli_env: dict[str, str], tmp_path: Path) -> AsyncIterator[Callable[..., Server]]:
    """Start ``svc-engine serve`` on a free port; stopped (SIGTERM) at teardown."""
    started: list[Server] = []

    async def start(*args: str, env: dict[str, str] | None = None) -> Server:
        process = await trio.lowlevel.open_process(
            [SCRIPT, "serve", "--port", "0", *args],
            env={**cli_env, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=str(tmp_path / "ws"),
        )
        lines: list[str] = []
        buffer = b""
        with trio.fail_after(60):
            while True:
                chunk = await process.stderr.receive_some(4096)
                if not chunk:
                    raise AssertionError("serve exited early:\n" + "\n".join(lines))
                buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                lines.extend(line.decode() for line in complete)
                match = next(
                    (
                        re.search(r"listening on (http://\S+)", line)
                        for line in lines
                        if "listening on" in line
                    ),
                    None,
                )
                if match:
                    break
        url = match.group(1)
        server = Server(process, url, int(url.rsplit(":", 1)[1]), lines)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.process.returncode is None:
            server.process.send_signal(signal.SIGTERM)
            with trio.move_on_after(30):
                await server.process.wait()
            if server.process.returncode is None:
                server.process.kill()
                await server.process.wait()
