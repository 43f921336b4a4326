"""The engine's end of the sidecar's stdio: JSON-RPC 2.0, one JSON object a line.

Requests are pipelined (each has its own id and waits for its own reply), so
ten sessions' calls travel at once. The reader and the stderr drain run in the
owner's nursery (the sidecar actor's); when stdout ends every waiting call
fails with :class:`SidecarClosed`, carrying the tail of the sidecar's stderr.
"""

from __future__ import annotations

import itertools
import json
import subprocess
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import trio

from .errors import BrowserError, SidecarClosed

STDERR_KEEP = 600
"""Characters of the sidecar's stderr kept (the last ones) for error messages."""
CLOSED = "browser sidecar closed the stdio connection"
STOP_GRACE = 5.0


class SidecarConnection:
    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self._ids = itertools.count(1)
        self._waiting: dict[int, trio.MemorySendChannel[dict[str, Any]]] = {}
        self._write_lock = trio.Lock()
        self._stderr: deque[str] = deque(maxlen=STDERR_KEEP)
        self.closed = False

    @classmethod
    async def start(
        cls, nursery: trio.Nursery, command: Sequence[str], env: Mapping[str, str]
    ) -> SidecarConnection:
        process = await trio.lowlevel.open_process(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
        )
        connection = cls(process)
        nursery.start_soon(connection._read_stdout)
        nursery.start_soon(connection._read_stderr)
        return connection

    @property
    def stderr_tail(self) -> str:
        return "".join(self._stderr).strip()

    def _closed_error(self) -> SidecarClosed:
        tail = self.stderr_tail
        return SidecarClosed(f"{CLOSED}" + (f": {tail}" if tail else ""))

    async def call(
        self, method: str, params: Mapping[str, Any], *, timeout: float
    ) -> dict[str, Any]:
        if self.closed:
            raise self._closed_error()
        ident = next(self._ids)
        line = json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        send, receive = trio.open_memory_channel[dict[str, Any]](1)
        self._waiting[ident] = send
        try:
            assert self.process.stdin is not None
            try:
                async with self._write_lock:
                    await self.process.stdin.send_all(line.encode() + b"\n")
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.closed = True
                raise self._closed_error() from None
            with trio.move_on_after(timeout) as scope:
                try:
                    reply = await receive.receive()
                except trio.EndOfChannel:
                    raise self._closed_error() from None
            if scope.cancelled_caught:
                raise BrowserError(
                    f"browser_timeout: `{method}` got no answer in {timeout:g} s",
                    code="browser_timeout",
                )
        finally:
            self._waiting.pop(ident, None)
        if "error" in reply:
            error = reply["error"] or {}
            raise BrowserError.from_message(str(error.get("message") or "sidecar error"))
        return dict(reply.get("result") or {})

    async def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        buffer = b""
        try:
            while chunk := await self.process.stdout.receive_some(65536):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    self._deliver(line)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the process is gone: the same as end of file
        finally:
            self.closed = True
            for waiter in self._waiting.values():
                waiter.close()
            self._waiting.clear()

    def _deliver(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self._stderr.extend(line.decode("utf-8", "replace")[-STDERR_KEEP:])
            return
        ident = message.get("id") if isinstance(message, dict) else None
        waiter = self._waiting.pop(ident, None) if isinstance(ident, int) else None
        if waiter is not None:
            waiter.send_nowait(message)

    async def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        try:
            while chunk := await self.process.stderr.receive_some(65536):
                self._stderr.extend(chunk.decode("utf-8", "replace")[-STDERR_KEEP:])
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async def aclose(self) -> None:
        """Close stdin (the sidecar then ends every browser and exits); kill it if it lingers."""
        self.closed = True
        # Shielded: a stop must not leave the sidecar (and its browsers) running.
        with trio.CancelScope(shield=True):
            if self.process.stdin is not None:
                try:
                    await self.process.stdin.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
            with trio.move_on_after(STOP_GRACE):
                await self.process.wait()
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
