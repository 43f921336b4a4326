"""Processes of the browser tests, found in /proc and awaited through pidfds (no polling)."""

from __future__ import annotations

import os
from pathlib import Path

import trio


def children_running(marker: str) -> list[int]:
    """Child processes of this test process whose command line contains ``marker``."""
    mine = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == mine and marker.encode() in cmdline:
            found.append(int(entry))
    return found


async def wait_gone(pids: list[int], *, limit: float = 30.0) -> None:
    """Until every process in ``pids`` has exited (a bound, not a timing assertion)."""
    with trio.fail_after(limit):
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue
            try:
                await trio.lowlevel.wait_readable(fd)
            finally:
                os.close(fd)
