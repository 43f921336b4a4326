"""Run one shell command with a deadline, an output cap and no leftovers.

The command runs as ``/bin/sh -c`` in a new session, so it and everything it
starts share one process group that we can kill as a whole: on timeout, when
the caller is cancelled, and after the shell exits (a background job such as
``sleep 100 &`` would otherwise outlive the call and hold our pipe open).
"""

from __future__ import annotations

import os
import signal
import subprocess
from functools import partial
from pathlib import Path

import attrs
import trio

from .types import ToolFailed

DEFAULT_OUTPUT_CAP = 100_000
# After the shell exits and its group is killed, the pipe closes at once; the
# grace only matters for a process that escaped the group (setsid) and kept it.
DRAIN_GRACE_SECONDS = 1.0


@attrs.frozen
class ShellResult:
    output: bytes
    """Combined stdout and stderr, at most the cap."""
    exit_code: int | None
    """None when the command was killed for running past its deadline."""
    timed_out: bool
    truncated: bool
    total_bytes: int


@attrs.define
class _Sink:
    cap: int
    chunks: list[bytes] = attrs.field(factory=list)
    kept: int = 0
    total: int = 0

    def add(self, chunk: bytes | bytearray) -> None:
        self.total += len(chunk)
        room = self.cap - self.kept
        if room > 0:
            piece = bytes(chunk[:room])
            self.chunks.append(piece)
            self.kept += len(piece)


def kill_process_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid``; a group that is already gone is fine."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def _deliver_cancel(process: trio.Process) -> None:
    # trio's default signals only the shell; its children would survive.
    kill_process_group(process.pid)


async def _drain(stream: trio.abc.ReceiveStream, sink: _Sink, done: trio.Event) -> None:
    # Keep reading past the cap: a child blocked on a full pipe would never exit.
    async with stream:
        async for chunk in stream:
            sink.add(chunk)
    done.set()


async def _supervise(nursery: trio.Nursery, process: trio.Process, sink: _Sink) -> int:
    assert process.stdout is not None
    drained = trio.Event()
    nursery.start_soon(_drain, process.stdout, sink, drained)
    exit_code = await process.wait()
    # The group id stays reserved while any member lives, so this reaches only
    # the command's own leftovers.
    kill_process_group(process.pid)
    with trio.move_on_after(DRAIN_GRACE_SECONDS):
        await drained.wait()
    if not drained.is_set():
        nursery.cancel_scope.cancel()
    return exit_code


async def run_shell(
    command: str, *, cwd: Path, time_limit: float, output_cap: int = DEFAULT_OUTPUT_CAP
) -> ShellResult:
    """Run ``command`` for at most ``time_limit`` seconds; return its output and exit code.

    Cancellation from the caller kills the process group before it propagates.
    Raises :class:`ToolFailed` when the shell cannot be started (e.g. a missing cwd).
    """
    sink = _Sink(output_cap)
    exit_code: int | None = None
    start_error: OSError | None = None
    with trio.move_on_after(time_limit) as deadline:
        async with trio.open_nursery() as nursery:
            try:
                process: trio.Process = await nursery.start(
                    partial(
                        trio.run_process,
                        ["/bin/sh", "-c", command],
                        cwd=str(cwd),
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                        check=False,
                        deliver_cancel=_deliver_cancel,
                    )
                )
            except OSError as exc:
                # Raised out of the nursery it would arrive wrapped in an ExceptionGroup.
                start_error = exc
            else:
                exit_code = await _supervise(nursery, process, sink)
    if start_error is not None:
        raise ToolFailed(f"cannot start the command: {start_error.strerror or start_error}")
    # A command that finished just as the deadline fired still counts as finished.
    timed_out = deadline.cancelled_caught and exit_code is None
    return ShellResult(
        output=b"".join(sink.chunks),
        exit_code=exit_code,
        timed_out=timed_out,
        truncated=sink.total > sink.kept,
        total_bytes=sink.total,
    )


__all__ = ["DEFAULT_OUTPUT_CAP", "ShellResult", "kill_process_group", "run_shell"]
