"""A loopback TCP proxy that can cut a connection the way a failing network does.

``drop_next(marker)``: the next client write containing ``marker`` is not forwarded;
the client's connection is closed instead, so its request gets no answer at all
("server disconnected without sending a response"), as when a server process dies
or a keep-alive connection is closed under a request. Everything else is piped
through unchanged, each client connection to its own upstream connection.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import attrs
import trio


@attrs.define
class TcpProxy:
    target_port: int
    port: int = 0
    dropped: int = 0
    _markers: list[bytes] = attrs.field(factory=list)

    def drop_next(self, marker: bytes) -> None:
        self._markers.append(marker)

    async def handle(self, client: trio.SocketStream) -> None:
        upstream = await trio.open_tcp_stream("127.0.0.1", self.target_port)
        async with client, upstream, trio.open_nursery() as nursery:

            async def downstream() -> None:
                async for data in upstream:
                    await client.send_all(data)
                nursery.cancel_scope.cancel()

            nursery.start_soon(downstream)
            async for data in client:
                marker = next((m for m in self._markers if m in data), None)
                if marker is not None:
                    self._markers.remove(marker)
                    self.dropped += 1
                    break  # both connections close, nothing forwarded
                await upstream.send_all(data)
            nursery.cancel_scope.cancel()


@asynccontextmanager
async def open_tcp_proxy(target_port: int) -> AsyncIterator[TcpProxy]:
    proxy = TcpProxy(target_port)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            functools.partial(trio.serve_tcp, proxy.handle, 0, host="127.0.0.1")
        )
        proxy.port = listeners[0].socket.getsockname()[1]
        try:
            yield proxy
        finally:
            nursery.cancel_scope.cancel()


__all__ = ["TcpProxy", "open_tcp_proxy"]
