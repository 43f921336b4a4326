"""A replica killed with ``kill -9``: its sessions come back on another replica."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
import trio

import svc
from tests.helpers import text_prompt

LEASE_MS = 2000


@pytest.fixture
async def process_replica(pg_url: str, tmp_path: Path) -> AsyncIterator[Callable[[], trio.Process]]:
    """Start a replica process on ``pg_url``; its URL is read from its first line."""
    started: list[trio.Process] = []

    async def start() -> tuple[trio.Process, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path / "home"),
            "SVC_STATE_DIR": str(tmp_path / "state-p"),
            "SVC_WORKSPACE": str(tmp_path),
            "SVC_GLOBAL_CONFIG": str(tmp_path / "global.json"),
            "SVC_STORE_URL": pg_url,
            "SVC_CLUSTER_LEASE_MS": str(LEASE_MS),
        }
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "tests.svc.cluster.replica_process"],
            env=env,
            cwd=str(Path(__file__).resolve().parents[3]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        started.append(process)
        assert process.stderr is not None
        seen = b""
        with trio.fail_after(60):
            while (match := re.search(rb"listening on (http://\S+)", seen)) is None:
                chunk = await process.stderr.receive_some(4096)
                if not chunk:
                    raise AssertionError("the replica exited early:\n" + seen.decode())
                seen += chunk
        return process, match.group(1).decode()

    yield start  # type: ignore[misc]
    for process in started:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_a_session_of_a_killed_replica_is_taken_over_with_nothing_lost(
    process_replica: Callable[..., object],
    make_settings: Callable[..., svc.Settings],
    pg_url: str,
    tmp_path: Path,
) -> None:
    a, a_url = await process_replica()  # type: ignore[misc]
    settings = make_settings(store_url=pg_url, state_dir=tmp_path / "b", cluster_lease_ms=LEASE_MS)
    async with (
        svc.open_engine(settings, serve_http=True, components=[]) as b,
        httpx.AsyncClient(base_url=a_url, timeout=30) as client_a,
        httpx.AsyncClient(base_url=b.url or "", timeout=30) as client_b,
    ):
        sid = (await client_a.post("/session", json={})).json()["id"]
        first = await client_a.post(f"/session/{sid}/prompt_sync", json=text_prompt("first"))
        assert first.json()["status"] == "completed"
        assert (await client_b.get("/global/health")).json()["liveReplicas"] == 2

        a.kill()  # SIGKILL: no goodbye, the lease stays until it expires
        await a.wait()
        assert a.returncode == -signal.SIGKILL

        # B forwards to A, finds it gone, waits out the lease, and runs it itself.
        with trio.fail_after(60):  # a safety net: the takeover needs one lease time
            again = await client_b.post(f"/session/{sid}/prompt_sync", json=text_prompt("second"))
        assert again.status_code == 200, again.text
        assert again.json()["status"] == "completed"
        messages = (await client_b.get(f"/session/{sid}/message")).json()
        texts = [m["parts"][0].get("text", "").strip() for m in messages]
        assert texts == ["first", "first", "second", "second"]
        assert b.actors.lookup("session/" + sid) is not None
