"""A loopback TCP relay whose connections the test can cut, to drop an SSE stream mid-run."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import trio


class Relay:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.cuts = 0
        self.refusing = False
        """While true, new connections are closed at once (the engine looks unreachable)."""
        self._scopes: set[trio.CancelScope] = set()

    def cut_all(self) -> None:
        """Drop every open connection (the browser sees a network failure and reconnects)."""
        self.cuts += 1
        for scope in list(self._scopes):
            scope.cancel()

    async def _pipe(self, source: trio.SocketStream, sink: trio.SocketStream) -> None:
        while data := await source.receive_some(65536):
            await sink.send_all(data)

    async def _handle(self, client: trio.SocketStream) -> None:
        if self.refusing:
            await client.aclose()
            return
        with trio.CancelScope() as scope:
            self._scopes.add(scope)
            try:
                upstream = await trio.open_tcp_stream("127.0.0.1", self.target_port)
                async with client, upstream, trio.open_nursery() as nursery:
                    nursery.start_soon(self._pipe, client, upstream)
                    nursery.start_soon(self._pipe, upstream, client)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
            finally:
                self._scopes.discard(scope)


@asynccontextmanager
async def open_relay(target_port: int) -> AsyncIterator[Relay]:
    relay = Relay(target_port)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, relay._handle, 0, host="127.0.0.1"))
        relay.port = listeners[0].socket.getsockname()[1]
        yield relay
        nursery.cancel_scope.cancel()
