"""The Chrome DevTools Protocol over one websocket (trio-websocket).

One connection per browser, to its browser endpoint; pages are reached through
flattened target sessions (``Target.attachToTarget`` with ``flatten``), so
every command carries the ``sessionId`` of the page it is for. Commands are
matched to replies by id; events are handed to the listeners of their session.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import trio
from trio_websocket import ConnectionClosed, DisconnectionTimeout, open_websocket_url

# A full-page screenshot of a long page is large; the default cap is 1 MiB.
MAX_MESSAGE = 256 * 1024 * 1024

Listener = Callable[[str, Mapping[str, Any]], None]


class CdpError(Exception):
    """A command answered with an error, or the connection ended."""


class CdpConnection:
    """Send commands, get replies; deliver events to per-session listeners."""

    def __init__(self, ws: Any) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._waiting: dict[int, trio.MemorySendChannel[Mapping[str, Any]]] = {}
        self._listeners: dict[str, list[Listener]] = {}
        self.closed = False

    async def send(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        session_id: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        if self.closed:
            raise CdpError("the browser connection is closed")
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": dict(params or {})}
        if session_id is not None:
            message["sessionId"] = session_id
        send, receive = trio.open_memory_channel[Mapping[str, Any]](1)
        self._waiting[ident] = send
        try:
            try:
                await self._ws.send_message(json.dumps(message))
            except ConnectionClosed:
                raise CdpError("the browser connection is closed") from None
            with trio.fail_after(timeout):
                try:
                    reply = await receive.receive()
                except trio.EndOfChannel:
                    raise CdpError("the browser connection is closed") from None
        except trio.TooSlowError:
            raise CdpError(f"`{method}` got no answer in {timeout:g} s") from None
        finally:
            self._waiting.pop(ident, None)
        if "error" in reply:
            error = reply["error"]
            raise CdpError(f"{method}: {error.get('message', error)}")
        return dict(reply.get("result") or {})

    def listen(self, session_id: str, listener: Listener) -> None:
        self._listeners.setdefault(session_id, []).append(listener)

    def forget(self, session_id: str) -> None:
        self._listeners.pop(session_id, None)

    async def _read(self) -> None:
        try:
            while True:
                message = json.loads(await self._ws.get_message())
                ident = message.get("id")
                if ident is not None:
                    waiter = self._waiting.pop(ident, None)
                    if waiter is not None:
                        waiter.send_nowait(message)
                    continue
                method = message.get("method")
                for listener in self._listeners.get(message.get("sessionId", ""), ()):
                    listener(method, message.get("params") or {})
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            for waiter in self._waiting.values():
                waiter.close()
            self._waiting.clear()


@asynccontextmanager
async def open_cdp(url: str) -> AsyncIterator[CdpConnection]:
    """Connect to a browser endpoint; the reader runs until the block ends."""
    try:
        async with open_websocket_url(
            url, max_message_size=MAX_MESSAGE, connect_timeout=30, disconnect_timeout=1
        ) as ws:
            connection = CdpConnection(ws)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(connection._read)
                try:
                    yield connection
                finally:
                    # The browser is being closed: its reader ends with it.
                    nursery.cancel_scope.cancel()
    except DisconnectionTimeout:
        # The browser did not finish the close handshake: it is killed right after
        # this block, so there is nothing left to wait for.
        pass
