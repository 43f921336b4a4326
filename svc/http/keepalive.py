"""Keep a keep-alive connection usable when the answer comes before the request body.

Early refusals (401, 403, 404, 405, 413, 415) are answered without reading the
request body. Hypercorn cannot start the next request on a connection whose
previous body is still arriving, so it closes the connection, from inside the
app's last ``send``. Quart-trio cancels the app's tasks the moment hypercorn
reports the end of the request, which happens in that same ``send`` just
before the close, so the close was cancelled halfway: the socket stayed open,
nothing read the next request, and the client waited for its read timeout.

:func:`serve_guarded` wraps one HTTP exchange with two promises:

* before a response starts, the rest of a bounded request body is waited for
  (quart-trio's receiver task keeps reading, and past the limit discarding,
  it), so the connection can carry the next request; a body declared or found
  to be over the limit, or one that does not arrive in time, makes the
  response say ``Connection: close`` so the client does not reuse it;
* the response's last message is sent shielded, so hypercorn's recycling or
  closing of the connection runs to its end.
"""

from __future__ import annotations

from typing import cast

import trio
from hypercorn.typing import (
    ASGIReceiveCallable,
    ASGIReceiveEvent,
    ASGISendCallable,
    ASGISendEvent,
    HTTPResponseStartEvent,
    HTTPScope,
)

DRAIN_SECONDS = 10.0
"""How long a response waits for the rest of a bounded body before giving up the connection."""


class _BodyProgress:
    """What has arrived of the request body, seen through the app's ``receive``."""

    def __init__(self, receive: ASGIReceiveCallable, *, declared: int | None, limit: int) -> None:
        self._receive = receive
        self._limit = limit
        self.received = 0
        self.complete = False
        self.settled = trio.Event()
        """Set once waiting longer is pointless: complete, over the limit, or disconnected."""
        if declared is not None and declared > limit:
            self.settled.set()

    async def receive(self) -> ASGIReceiveEvent:
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if not message.get("more_body", False):
                self.complete = True
                self.settled.set()
            elif self.received > self._limit:
                self.settled.set()
        elif message["type"] == "http.disconnect":
            self.settled.set()
        return message


def declared_length(scope: HTTPScope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def guard_exchange(
    scope: HTTPScope, receive: ASGIReceiveCallable, send: ASGISendCallable, *, limit: int
) -> tuple[ASGIReceiveCallable, ASGISendCallable]:
    """The ``receive`` and ``send`` to hand the app for one HTTP exchange."""
    body = _BodyProgress(receive, declared=declared_length(scope), limit=limit)

    async def guarded_send(message: ASGISendEvent) -> None:
        if message["type"] == "http.response.start" and not body.complete:
            message = await _after_body(body, message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            # Shielded: hypercorn delivers ``http.disconnect`` inside this send,
            # quart-trio then cancels the exchange, and hypercorn's recycling or
            # closing of the connection, which follows in this same send, must
            # not stop halfway. Bounded: hypercorn shields its socket writes
            # already, and the rest is bookkeeping and closing a socket.
            with trio.CancelScope(shield=True):
                await send(message)
            return
        await send(message)

    return body.receive, guarded_send


async def _after_body(body: _BodyProgress, start: HTTPResponseStartEvent) -> ASGISendEvent:
    """The response start, once the body is in; with ``Connection: close`` if it cannot be."""
    if not body.settled.is_set():
        with trio.move_on_after(DRAIN_SECONDS):
            await body.settled.wait()
    if body.complete:
        return start
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"connection"]
    headers.append((b"connection", b"close"))
    return cast(HTTPResponseStartEvent, {**start, "headers": headers})
