"""A pseudo-terminal driving a real console script, as a person at a terminal would.

The child gets the terminal's slave end as stdin, stdout and stderr, in a new
session whose controlling terminal it is, so a ``\\x03`` typed into the master
becomes a real SIGINT from the terminal's line discipline.
"""

from __future__ import annotations

import errno
import fcntl
import os
import pty
import termios
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import trio


def _take_terminal() -> None:
    # In the child, after setsid (start_new_session): stdin becomes the controlling tty.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    def __init__(self, process: trio.Process, master: int) -> None:
        self.process = process
        self.master = master
        self.output = ""
        self._mark = 0

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    async def expect(self, text: str, *, timeout: float = 20) -> str:
        """Read until ``text`` appears after the last match; returns what was read up to it."""
        with trio.move_on_after(timeout) as waited:
            while text not in self.output[self._mark :]:
                await trio.lowlevel.wait_readable(self.master)
                try:
                    chunk = os.read(self.master, 65536)
                except OSError as exc:  # EIO: the child closed the terminal
                    if exc.errno != errno.EIO:
                        raise
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"terminal closed before {text!r}:\n{self.output}")
                self.output += chunk.decode(errors="replace").replace("\r\n", "\n")
        if waited.cancelled_caught:
            raise AssertionError(f"no {text!r} on the terminal; it shows:\n{self.output}")
        end = self.output.index(text, self._mark) + len(text)
        seen, self._mark = self.output[self._mark : end], end
        return seen

    async def drain(self) -> None:
        """Read until the child closes the terminal."""
        with trio.fail_after(60):
            while True:
                await trio.lowlevel.wait_readable(self.master)
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self.output += chunk.decode(errors="replace").replace("\r\n", "\n")


@asynccontextmanager
async def open_terminal(
    argv: Sequence[str], *, env: dict[str, str], cwd: Path
) -> AsyncIterator[Terminal]:
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    try:
        process = await trio.lowlevel.open_process(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={"TERM": "dumb", **env},
            cwd=str(cwd),
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
    finally:
        os.close(slave)
    terminal = Terminal(process, master)
    try:
        yield terminal
    finally:
        if process.returncode is None:
            process.kill()
        with trio.move_on_after(30):
            await process.wait()
        os.close(master)
