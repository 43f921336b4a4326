"""Starting and ending one Chromium process (and every process it starts).

Chromium runs in a process group of its own, so ending a session kills the
browser and its zygote, renderer and GPU helpers in one ``killpg``. If the
sidecar itself dies (even by SIGKILL), the kernel sends the browser SIGKILL
too (``PR_SET_PDEATHSIG``), and its helpers, which watch the browser, follow.

The process is forked from the Trio thread itself, not a worker thread (as
``trio.run_process`` does): the parent-death signal fires when the *thread*
that forked exits, and a worker thread of Trio's cache exits when idle.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import attrs
import trio

# Flags a browser under automation needs on a host without a desktop or network:
# background networking, component updates and sync all try outside hosts.
BASE_FLAGS = (
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--password-store=basic",
    "--use-mock-keychain",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)

PORT_FILE = "DevToolsActivePort"
_PR_SET_PDEATHSIG = 1
STDERR_KEEP = 4_000


class LaunchFailed(Exception):
    """Chromium did not start or did not open its DevTools endpoint."""


@attrs.frozen
class LaunchOptions:
    executable: str
    headless: bool = True
    no_sandbox: bool = False
    width: int = 1280
    height: int = 800
    profile_dir: Path | None = None
    """A persistent profile; None makes a temporary one, removed when the browser ends."""
    temp_root: Path | None = None
    """Where temporary profiles go (the system's temp dir when None)."""


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def command(options: LaunchOptions, profile: Path) -> list[str]:
    args = [options.executable, *BASE_FLAGS]
    if options.headless:
        args.append("--headless")
    if options.no_sandbox:
        args.append("--no-sandbox")
    args += [
        f"--window-size={options.width},{options.height}",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    return args


@attrs.define(eq=False)
class Chromium:
    """A running browser: its process, its DevTools URL and its profile directory."""

    process: subprocess.Popen[bytes]
    profile: Path
    temporary: bool
    stderr: IO[bytes]
    """An unnamed file, so a chatty browser never blocks on a full pipe."""
    ws_url: str = ""

    @property
    def pid(self) -> int:
        return self.process.pid

    def stderr_text(self, limit: int = STDERR_KEEP) -> str:
        try:
            self.stderr.seek(0)
            return self.stderr.read()[-limit:].decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def kill(self) -> None:
        """End the browser and every helper it started, at once; remove a temporary profile.

        Synchronous and idempotent, so it can run from ``finally`` blocks and at exit.
        """
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        # The group was sent SIGKILL: reaping the leader is immediate.
        self.process.wait()
        self.stderr.close()
        if self.temporary:
            shutil.rmtree(self.profile, ignore_errors=True)


def _profile(options: LaunchOptions) -> tuple[Path, bool]:
    if options.profile_dir is not None:
        options.profile_dir.mkdir(parents=True, exist_ok=True)
        # A persistent profile keeps the port file of its last browser.
        (options.profile_dir / PORT_FILE).unlink(missing_ok=True)
        return options.profile_dir, False
    root = options.temp_root
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="svc-browser-", dir=root)), True


async def launch(options: LaunchOptions, *, timeout: float = 30.0) -> Chromium:
    """Start Chromium and wait for its DevTools endpoint.

    On any failure (or cancellation) the process group is killed before this returns.
    """
    profile, temporary = _profile(options)
    # Owned by the Chromium record, which closes it when the browser is killed.
    stderr = tempfile.TemporaryFile()  # noqa: SIM115
    try:
        # Forked here on purpose, in the Trio thread (see the module docstring).
        process = subprocess.Popen(  # noqa: ASYNC220
            command(options, profile),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
    except OSError as exc:
        stderr.close()
        if temporary:
            shutil.rmtree(profile, ignore_errors=True)
        raise LaunchFailed(f"cannot run `{options.executable}`: {exc.strerror}") from None
    browser = Chromium(process, profile, temporary, stderr)
    try:
        browser.ws_url = await _wait_endpoint(browser, timeout)
    except BaseException:
        browser.kill()
        raise
    return browser


async def _wait_endpoint(browser: Chromium, timeout: float) -> str:
    """Read ``DevToolsActivePort`` (port, then path), which Chromium writes once listening."""
    port_file = browser.profile / PORT_FILE
    with trio.move_on_after(timeout):
        while browser.process.poll() is None:
            try:
                lines = port_file.read_text().split()
            except OSError:
                lines = []
            if len(lines) >= 2:
                return f"ws://127.0.0.1:{lines[0]}{lines[1]}"
            # Chromium offers no notification for this; the file appears within
            # a few hundred milliseconds of the start.
            await trio.sleep(0.02)
        raise LaunchFailed(browser.stderr_text() or "Chromium exited at start")
    raise LaunchFailed(
        "Chromium did not open its DevTools endpoint in time: " + browser.stderr_text()
    )


def alive_pids_with(marker: str, pids: Sequence[int] | None = None) -> list[int]:
    """Processes whose command line contains ``marker`` (a /proc scan; tests use it)."""
    found = []
    for entry in os.listdir("/proc") if pids is None else [str(p) for p in pids]:
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry))
    return found
