"""Fixtures for the tool tests: a workspace context, engine settings, and process watching."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from svc import Settings
from svc.tools import ToolContext


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace)


@pytest.fixture
def settings_with(make_settings: Callable[..., Settings]) -> Callable[..., Settings]:
    """Settings for a ToolContext, with an explicit environment."""

    def make(env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        return make_settings(env, **overrides)

    return make


@attrs.define
class PidPipe:
    """A FIFO a shell command writes pids to (``echo $! > <path>``)."""

    path: Path
    stream: trio.lowlevel.FdStream

    async def read(self) -> list[int]:
        """The pids of the next line, waiting (bounded) for the writer."""
        data = b""
        with trio.fail_after(30):
            while not data.endswith(b"\n"):
                data += await self.stream.receive_some(64)
        return [int(p) for p in data.split()]


@pytest.fixture
async def pid_pipe(tmp_path: Path) -> AsyncIterator[PidPipe]:
    path = tmp_path / "pids.fifo"
    os.mkfifo(path)
    # Read-write and non-blocking: opening never waits for a writer and the
    # read stays cancellable; buffered lines survive the writer exiting.
    pipe = PidPipe(path, trio.lowlevel.FdStream(os.open(path, os.O_RDWR | os.O_NONBLOCK)))
    yield pipe
    await pipe.stream.aclose()


@attrs.define
class ProcessWatch:
    """Watch processes through pidfds and wait, bounded, until every one has exited."""

    fds: dict[int, int] = attrs.field(factory=dict)

    def watch(self, *pids: int) -> None:
        for pid in pids:
            try:
                self.fds[pid] = os.pidfd_open(pid)
            except ProcessLookupError:
                pass  # already gone

    async def all_exited(self) -> None:
        with trio.fail_after(10):
            for fd in self.fds.values():
                await trio.lowlevel.wait_readable(fd)

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)


@pytest.fixture
def process_watch() -> Iterator[ProcessWatch]:
    watch = ProcessWatch()
    yield watch
    watch.close()
