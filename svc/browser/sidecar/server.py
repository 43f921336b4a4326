"""``svc-browser serve --transport stdio``: newline-delimited JSON-RPC 2.0 on stdin/stdout.

Requests are handled concurrently (each in its own task), so one slow page never
holds up another session; replies are written whole, one line each, under a lock.
When stdin ends (the engine closed the pipe or died) or the process is asked to
stop, every session's browser is killed before the sidecar exits.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Mapping
from typing import Any

import trio

from ..readiness import PROTOCOL_VERSION
from .errors import SidecarError
from .methods import Methods
from .options import SidecarOptions

MAX_LINE = 64 * 1024 * 1024


def error_reply(ident: Any, code: int, message: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "error": {"code": code, "message": message, "data": {"protocol_version": PROTOCOL_VERSION}},
    }


class Server:
    def __init__(self, methods: Methods, send: trio.abc.SendStream) -> None:
        self.methods = methods
        self._send = send
        self._lock = trio.Lock()

    async def reply(self, message: Mapping[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        async with self._lock:
            await self._send.send_all(data)

    async def handle_line(self, line: bytes) -> None:
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("not an object")
        except ValueError:
            await self.reply(error_reply(None, -32700, "parse error"))
            return
        ident = request.get("id")
        method = request.get("method")
        params = request.get("params") or {}
        handler = self.methods.table.get(method) if isinstance(method, str) else None
        if handler is None:
            await self.reply(error_reply(ident, 500, f"unknown method `{method}`"))
            return
        if not isinstance(params, Mapping):
            await self.reply(error_reply(ident, -32602, "params must be an object"))
            return
        try:
            result = await handler(params)
        except SidecarError as exc:
            await self.reply(error_reply(ident, exc.rpc_code, exc.message))
            return
        except Exception as exc:  # a bug must answer its request, not end every session
            await self.reply(error_reply(ident, 500, f"internal error: {exc!r}"))
            return
        await self.reply({"jsonrpc": "2.0", "id": ident, "result": result})


async def serve_stdio(options: SidecarOptions) -> None:
    stdin = trio.lowlevel.FdStream(os.dup(0))
    stdout = trio.lowlevel.FdStream(os.dup(1))
    async with trio.open_nursery() as nursery:
        methods = Methods(options, nursery)
        server = Server(methods, stdout)
        nursery.start_soon(_stop_on_signal, nursery.cancel_scope)
        try:
            buffer = b""
            while True:
                chunk = await stdin.receive_some(65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        nursery.start_soon(server.handle_line, line)
                if len(buffer) > MAX_LINE:
                    await server.reply(error_reply(None, -32700, "request line too long"))
                    buffer = b""
        finally:
            # stdin ended: the engine is gone or done with us. Every session ends
            # (killing its browser) and the requests in flight are abandoned.
            methods.close_all()
            nursery.cancel_scope.cancel()


async def _stop_on_signal(scope: trio.CancelScope) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        async for _ in signals:
            # Cancelling runs every session's finally, which kills its browser.
            scope.cancel()
            return
