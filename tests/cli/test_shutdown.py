"""SIGTERM with idle keep-alive clients connected: they are closed at once and serve exits 0.

Hypercorn's graceful shutdown waits (up to its grace period) for connections that are
busy, never for idle ones: an idle keep-alive connection, or one that never sent a
request, is closed as soon as shutdown begins. This test keeps that true (the process
exited in about a tenth of a second with such clients on a loaded machine). The grace
period is set far beyond the test's bound, so waiting for the idle clients would fail it.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

import trio

HEALTH = b"GET /global/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def test_sigterm_closes_idle_keepalive_connections_and_exits(
    served: Callable[..., Any],
) -> None:
    # A grace far longer than the bound below: were idle connections waited for, the
    # process could not exit within it.
    server = await served("--quiet", env={"SVC_SHUTDOWN_GRACE_MS": "120000"})
    idle: list[trio.SocketStream] = []
    for _ in range(3):
        stream = await trio.open_tcp_stream("127.0.0.1", server.port)
        await stream.send_all(HEALTH)
        reply = b""
        with trio.fail_after(30):
            while not reply.rstrip().endswith(b"}"):
                reply += await stream.receive_some(4096)
        assert reply.startswith(b"HTTP/1.1 200")
        idle.append(stream)  # kept open: an idle keep-alive client
    idle.append(await trio.open_tcp_stream("127.0.0.1", server.port))  # never sent anything
    server.process.send_signal(signal.SIGTERM)
    with trio.fail_after(30):
        for stream in idle:
            assert await stream.receive_some(1) == b""  # closed by the server
        await server.process.wait()
    assert server.process.returncode == 0
    for stream in idle:
        await stream.aclose()
