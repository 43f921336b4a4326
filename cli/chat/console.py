"""The chat client's terminal: lines in (readline on a terminal), text out, Ctrl-C as events.

Reading a line blocks, so it runs in a worker thread. A read that loses a race
(Ctrl-C arrived first) is not abandoned: its line is kept for the next read,
since the thread cannot be interrupted and the person is still typing into it.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

import trio

HISTORY_LENGTH = 1000


def history_path(environ: Mapping[str, str] = os.environ) -> Path:
    """``chat_history`` in the user's state directory (as the engine resolves it)."""
    state = environ.get("AGENT_STATE_DIR") or environ.get("SVC_STATE_DIR")
    if state:
        return Path(state).expanduser() / "chat_history"
    data_home = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "svc-engine" / "chat_history"


class Interrupts:
    """Ctrl-C presses, queued for whoever waits on :meth:`next`."""

    def __init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[None](math.inf)

    def press(self) -> None:
        self._send.send_nowait(None)

    async def next(self) -> None:
        await self._receive.receive()

    async def pump(self, signals: Any) -> None:
        """Feed presses from a ``trio.open_signal_receiver(SIGINT)`` iterator."""
        async for _ in signals:
            self.press()


class Console:
    """Where the chat reads and writes; ``interactive`` is a terminal with readline."""

    def __init__(
        self,
        nursery: trio.Nursery,
        *,
        stdin: TextIO = sys.stdin,
        stdout: TextIO = sys.stdout,
        interactive: bool | None = None,
        history: Path | None = None,
    ) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.interactive = stdin.isatty() if interactive is None else interactive
        self._nursery = nursery
        self._lines, self._receive = trio.open_memory_channel[str | None](1)
        self._pending = False
        self._history = history
        self._saved_tty: Any = None
        self._readline: Any = None

    # ------------------------------------------------------------------ life
    def open(self) -> None:
        if not self.interactive:
            return
        import termios

        # readline puts the terminal in raw mode while it reads; a client that
        # leaves mid-read (Ctrl-C twice) restores it in close().
        try:
            self._saved_tty = termios.tcgetattr(self.stdin.fileno())
        except termios.error:
            self._saved_tty = None
        try:
            import readline
        except ImportError:  # a Python built without it: plain input() still works
            return
        self._readline = readline
        readline.set_history_length(HISTORY_LENGTH)
        if self._history is not None and self._history.exists():
            try:
                readline.read_history_file(str(self._history))
            except OSError:
                pass  # an unreadable history is no reason to refuse to chat

    def close(self) -> None:
        if self._saved_tty is not None:
            import termios

            termios.tcsetattr(self.stdin.fileno(), termios.TCSADRAIN, self._saved_tty)

    def remember(self, line: str) -> None:
        """Keep ``line`` in the history file (appended now, so a crash loses nothing)."""
        if self._readline is None or self._history is None or not line.strip():
            return
        try:
            self._history.parent.mkdir(parents=True, exist_ok=True)
            self._history.touch(exist_ok=True)
            self._readline.append_history_file(1, str(self._history))
        except OSError:
            pass  # history is a convenience; failing to save it must not end the chat

    # ------------------------------------------------------------------ output
    def write(self, text: str) -> None:
        if text:
            self.stdout.write(text)
            self.stdout.flush()

    # ------------------------------------------------------------------ input
    async def read_line(self, prompt: str, *, show_prompt_when_piped: bool = False) -> str | None:
        """The next line (``None`` at end of input). Cancelling keeps the line for the next call."""
        if not self._pending:
            self._pending = True
            if not self.interactive and show_prompt_when_piped:
                self.write(prompt)
            self._nursery.start_soon(self._read_into_channel, prompt)
        line = await self._receive.receive()
        self._pending = False
        return line

    async def _read_into_channel(self, prompt: str) -> None:
        read: Callable[[str], str | None] = (
            self._input if self.interactive else self._readline_piped
        )
        # abandon_on_cancel: at exit the thread may still wait for a line nobody will type.
        line = await trio.to_thread.run_sync(read, prompt, abandon_on_cancel=True)
        await self._lines.send(line)

    @staticmethod
    def _input(prompt: str) -> str | None:
        try:
            return input(prompt)
        except EOFError:
            return None

    def _readline_piped(self, prompt: str) -> str | None:
        line = self.stdin.readline()
        return None if line == "" else line.rstrip("\r\n")
