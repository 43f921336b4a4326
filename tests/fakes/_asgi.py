"""Serving a fake upstream: a raw ASGI app on a loopback hypercorn server.

:class:`FakeServer` is the shared base of the fake provider servers: it records
every request, pops scripted :class:`~tests.fakes.turns.Turn` records from a
queue (or asks ``default`` when the queue is empty) and leaves the rendering to
a subclass. :class:`StreamWriter` sends a streamed body with the turn's pacing
(batching, ``delay``, ``gate``, ``drop_after``). :func:`serve_fake` runs a
server for the duration of an ``async with`` block.
"""

from __future__ import annotations

import json
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, MutableMapping
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeVar

import attrs
import hypercorn.config
import hypercorn.trio
import trio

from .turns import Turn, last_user_text

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

log = logging.getLogger("tests.fakes")

# Frames are sent in batches of about this many bytes (a 5,000-chunk turn
# would otherwise cost 5,000 ASGI sends).
BATCH_BYTES = 16 * 1024


@attrs.frozen
class RecordedRequest:
    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    """Lower-cased names; repeated headers joined with ``", "``."""
    body: Any
    """The parsed JSON body, or ``None`` if it was empty or not JSON."""
    raw: bytes = attrs.field(repr=False)

    @property
    def json(self) -> Any:
        return self.body


class DroppedConnection(Exception):
    """Raised by :class:`StreamWriter` to abort a response mid-body (``drop_after``)."""


class StreamWriter:
    """Sends one streamed body, applying the turn's pacing rules.

    ``stop`` is set when the client disconnects or the server closes; a
    response waiting on its ``delay`` or ``gate`` then ends at once (the
    connection is closed mid-body). Cancellation is deliberately not used for
    this: a cancel landing inside hypercorn's own ``send`` machinery leaves the
    connection half-recycled, and shutdown then waits for the graceful timeout.
    """

    def __init__(self, send: Send, turn: Turn, stop: trio.Event) -> None:
        self._send = send
        self._turn = turn
        self._stop = stop
        self._buffer = bytearray()
        self._sent = 0
        self._gated = turn.gate is None

    async def start(
        self, *, content_type: str = "text/event-stream", headers: Iterable[tuple[str, str]] = ()
    ) -> None:
        await self._send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", content_type.encode()),
                    (b"cache-control", b"no-cache"),
                    *((k.encode(), v.encode()) for k, v in headers),
                ],
            }
        )

    async def preamble(self, frame: bytes) -> None:
        """A frame before the content (role chunk, ``message_start``): never delayed or dropped."""
        self._buffer += frame

    async def content(self, frame: bytes) -> None:
        """A content chunk: subject to ``gate``, ``drop_after`` and ``delay``."""
        await self._checkpoint()
        if self._turn.delay:
            await self.flush()
            with trio.move_on_after(self._turn.delay):
                await self._stop.wait()
            self._raise_if_stopped()
        self._buffer += frame
        self._sent += 1
        if len(self._buffer) >= BATCH_BYTES:
            await self.flush()

    async def frame(self, frame: bytes) -> None:
        """A structural frame once content began (block stops, finish, usage, terminator).

        Not counted and not delayed, but a due ``gate`` or ``drop_after`` applies first.
        """
        await self._checkpoint()
        self._buffer += frame

    async def finish(self) -> None:
        await self._checkpoint()
        await self._send(
            {"type": "http.response.body", "body": bytes(self._buffer), "more_body": False}
        )
        self._buffer.clear()

    async def flush(self) -> None:
        if self._buffer:
            await self._send(
                {"type": "http.response.body", "body": bytes(self._buffer), "more_body": True}
            )
            self._buffer.clear()

    async def _checkpoint(self) -> None:
        turn = self._turn
        if not self._gated and self._sent >= turn.gate_after:
            self._gated = True
            await self.flush()
            assert turn.gate is not None
            await _first_of(turn.gate, self._stop)
            self._raise_if_stopped()
        if turn.drop_after is not None and self._sent >= turn.drop_after:
            await self.flush()
            raise DroppedConnection

    def _raise_if_stopped(self) -> None:
        if self._stop.is_set():
            raise DroppedConnection


async def _first_of(*events: trio.Event) -> None:
    """Return once any of ``events`` is set."""
    async with trio.open_nursery() as nursery:
        for event in events:

            async def wait(event: trio.Event = event) -> None:
                await event.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(wait)


def sse(data: Any, event: str | None = None) -> bytes:
    """One SSE frame; ``data`` is JSON-encoded unless it is already a string."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    prefix = f"event: {event}\n" if event else ""
    return f"{prefix}data: {text}\n\n".encode()


async def send_json(
    send: Send, status: int, body: Any, headers: Iterable[tuple[str, str]] = ()
) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *((k.encode(), v.encode()) for k, v in headers),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload, "more_body": False})


class FakeServer:
    """Request recording and the turn queue; subclasses implement :meth:`handle`.

    Public API for tests:

    * ``url``: the base URL clients are configured with (wire-specific prefix);
    * ``requests``: every :class:`RecordedRequest`, in arrival order;
    * ``enqueue(*turns)``: script the next responses;
    * ``default``: a callable ``(RecordedRequest) -> Turn`` used when the queue
      is empty (initially :meth:`echo`, which echoes the last user message);
    * ``await wait_for_requests(n)``: block until ``n`` requests have arrived.
    """

    prefix = ""

    def __init__(self) -> None:
        self.url = ""
        self.root_url = ""
        self.requests: list[RecordedRequest] = []
        self.default: Callable[[RecordedRequest], Turn] = self.echo
        self._queue: deque[Turn] = deque()
        self._waiters: list[tuple[int, trio.Event]] = []
        self._stops: set[trio.Event] = set()

    # ------------------------------------------------------------------ scripting
    def enqueue(self, *turns: Turn) -> None:
        self._queue.extend(turns)

    @property
    def pending(self) -> int:
        """Scripted turns not yet served."""
        return len(self._queue)

    @property
    def last(self) -> RecordedRequest:
        return self.requests[-1]

    async def wait_for_requests(self, count: int) -> None:
        if len(self.requests) >= count:
            return
        event = trio.Event()
        self._waiters.append((count, event))
        await event.wait()

    def next_turn(self, request: RecordedRequest) -> Turn:
        return self._queue.popleft() if self._queue else self.default(request)

    def echo(self, request: RecordedRequest) -> Turn:
        """The default turn: the last user message's text, word by word."""
        return Turn.reply(self.last_user_text(request) or "ok")

    def last_user_text(self, request: RecordedRequest) -> str:
        """The text of the last user message that has text (every wire sends ``messages``)."""
        body = request.body if isinstance(request.body, dict) else {}
        return last_user_text(body.get("messages"))

    # ------------------------------------------------------------------ ASGI
    async def handle(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        """Answer ``request``; ``stop`` is for the :class:`StreamWriter` (see there)."""
        raise NotImplementedError

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        raw = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            raw += message.get("body", b"")
            if not message.get("more_body", False):
                break
        request = _record(scope, bytes(raw))
        self.requests.append(request)
        self._wake_waiters()
        # The response ends early if the client goes away or the server closes.
        stop = trio.Event()
        self._stops.add(stop)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_watch_disconnect, receive, stop)
                await self.handle(request, send, stop)
                # Only the watcher (blocked in receive) is cancelled here.
                nursery.cancel_scope.cancel()
        except* DroppedConnection:
            # Returning without finishing the body makes hypercorn close the
            # connection: the client sees a truncated chunked response.
            pass
        finally:
            self._stops.discard(stop)

    def close(self) -> None:
        """End every response still waiting on a delay or a gate."""
        for stop in list(self._stops):
            stop.set()

    def _wake_waiters(self) -> None:
        remaining = []
        for count, event in self._waiters:
            if len(self.requests) >= count:
                event.set()
            else:
                remaining.append((count, event))
        self._waiters = remaining


async def serve_lifespan(receive: Receive, send: Send) -> None:
    """Answer an ASGI lifespan scope: nothing to start or stop."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _watch_disconnect(receive: Receive, stop: trio.Event) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            stop.set()
            return


def _record(scope: Scope, raw: bytes) -> RecordedRequest:
    headers: dict[str, str] = {}
    for name, value in scope["headers"]:
        key, text = name.decode("latin-1").lower(), value.decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = None
    return RecordedRequest(
        method=scope["method"],
        path=scope["path"],
        query=scope.get("query_string", b"").decode("latin-1"),
        headers=headers,
        body=body,
        raw=raw,
    )


ServerT = TypeVar("ServerT", bound=FakeServer)


@asynccontextmanager
async def serve_fake(server: ServerT) -> AsyncIterator[ServerT]:
    """Serve ``server`` on ``127.0.0.1:<free port>`` until the block exits.

    On exit, responses waiting on a delay or gate end, the listener closes and
    idle keep-alive connections are shut; no task or port outlives the block.
    """
    config = hypercorn.config.Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.errorlog = log
    config.graceful_timeout = 2.0
    shutdown = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(
            partial(hypercorn.trio.serve, server, config, shutdown_trigger=shutdown.wait)
        )
        server.root_url = binds[0]
        server.url = binds[0] + server.prefix
        try:
            yield server
        finally:
            server.close()
            shutdown.set()
