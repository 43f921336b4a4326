"""A tiny HTTP/1.1 keep-alive load generator on raw trio sockets (for benchmarks)."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import trio


async def hammer(url: str, path: str, *, connections: int = 32, seconds: float = 5.0) -> float:
    """Requests per second completed against ``url`` + ``path`` over ``seconds``."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    done = 0
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal done
        stream = await trio.open_tcp_stream(host, port)
        buffer = b""
        async with stream:
            while time.perf_counter() < deadline:
                await stream.send_all(request)
                while True:
                    head_end = buffer.find(b"\r\n\r\n")
                    if head_end >= 0:
                        head = buffer[:head_end].lower()
                        start = head.find(b"content-length:")
                        length = (
                            int(
                                head[
                                    start + 15 : head.find(b"\r\n", start)
                                    if head.find(b"\r\n", start) > 0
                                    else len(head)
                                ].strip()
                            )
                            if start >= 0
                            else 0
                        )
                        total = head_end + 4 + length
                        if len(buffer) >= total:
                            buffer = buffer[total:]
                            break
                    chunk = await stream.receive_some(65536)
                    if not chunk:
                        raise ConnectionError("server closed the connection")
                    buffer += chunk
                done += 1

    started = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for _ in range(connections):
            nursery.start_soon(worker)
    return done / (time.perf_counter() - started)
