"""A real loopback HTTP server for tests: hypercorn around a tiny raw ASGI app.

Routes map a path to a :class:`Reply` (or a function of the :class:`Request`
returning one, possibly async, e.g. to hold a response until the test says so).
Every request is recorded, so a test can check what a client really sent. The
server binds ``127.0.0.1:0`` and is shut down when the context manager exits.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from functools import partial
from typing import Any
from urllib.parse import parse_qs

import attrs
import hypercorn.config
import hypercorn.trio
import trio

from tests.fakes._asgi import serve_lifespan


@attrs.frozen
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    """Lower-cased names."""
    body: bytes

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


@attrs.frozen
class Reply:
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    chunk_size: int | None = None
    """Send the body in pieces of this size (a streamed response)."""


Handler = Reply | Callable[[Request], Reply] | Callable[[Request], Awaitable[Reply]]


def html(body: str, status: int = 200) -> Reply:
    return Reply(status, body.encode(), (("content-type", "text/html; charset=utf-8"),))


def text(
    body: str | bytes, content_type: str = "text/plain; charset=utf-8", status: int = 200
) -> Reply:
    data = body.encode() if isinstance(body, str) else body
    return Reply(status, data, (("content-type", content_type),))


def redirect(location: str, status: int = 302) -> Reply:
    return Reply(status, b"", (("location", location),))


def json_reply(data: Any, status: int = 200) -> Reply:
    return Reply(status, json.dumps(data).encode(), (("content-type", "application/json"),))


@attrs.define
class WebServer:
    routes: dict[str, Handler]
    url: str = ""
    requests: list[Request] = attrs.field(factory=list)

    async def app(
        self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]
    ) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = Request(
            method=scope["method"],
            path=scope["path"],
            query=parse_qs(scope["query_string"].decode()),
            headers={k.decode().lower(): v.decode() for k, v in scope["headers"]},
            body=body,
        )
        self.requests.append(request)
        await _send_reply(send, await self._reply(request))

    async def _reply(self, request: Request) -> Reply:
        handler = self.routes.get(request.path)
        if handler is None:
            return Reply(404, b"not found")
        if isinstance(handler, Reply):
            return handler
        reply = handler(request)
        return await reply if inspect.isawaitable(reply) else reply


async def _send_reply(send: Callable[..., Any], reply: Reply) -> None:
    headers = [(k.encode(), v.encode()) for k, v in reply.headers]
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    size = reply.chunk_size or max(len(reply.body), 1)
    pieces = [reply.body[i : i + size] for i in range(0, len(reply.body), size)] or [b""]
    for index, piece in enumerate(pieces):
        await send(
            {"type": "http.response.body", "body": piece, "more_body": index < len(pieces) - 1}
        )


@asynccontextmanager
async def serve_asgi(app: Callable[..., Any]) -> AsyncIterator[str]:
    """Serve ``app`` on a free loopback port; yields its base URL (``http://127.0.0.1:<port>``)."""
    config = hypercorn.config.Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.errorlog = logging.getLogger("tests.fakes.web_server")
    config.graceful_timeout = 1.0
    shutdown = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(
            partial(hypercorn.trio.serve, app, config, shutdown_trigger=shutdown.wait)
        )
        try:
            yield binds[0]
        finally:
            shutdown.set()


@asynccontextmanager
async def open_web_server(routes: Mapping[str, Handler] | None = None) -> AsyncIterator[WebServer]:
    server = WebServer(dict(routes or {}))
    async with serve_asgi(server.app) as url:
        server.url = url
        yield server
