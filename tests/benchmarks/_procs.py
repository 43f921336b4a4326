"""Start a server subprocess and wait for its ``listening on <url>`` line."""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Sequence


def start_server(
    argv: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cpu: int | None = None,
    timeout: float = 60.0,
) -> tuple[subprocess.Popen[bytes], str, float]:
    """Returns (process, url, seconds from spawn to the listening line)."""
    started = time.perf_counter()

    def pin() -> None:
        if cpu is not None and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {cpu})

    process = subprocess.Popen(
        list(argv),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        preexec_fn=pin,
    )
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stderr.readline().decode()
        if not line:
            raise RuntimeError(f"{argv[0]} exited early")
        match = re.search(r"listening on (http://\S+)", line)
        if match:
            return process, match.group(1), time.perf_counter() - started
    raise TimeoutError("the server did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far (robust to a busy machine)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks
