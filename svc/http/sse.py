"""The one SSE helper every stream uses.

A stream is a view of the event log: frames ``id: <seq>`` + ``data: <json>``,
a keep-alive comment after 10 s of silence, resume from ``Last-Event-ID`` or a
``cursor`` query by replaying the log, no response timeout, and a clean end
when the client goes away (quart-trio cancels the handler on
``http.disconnect``; the subscription is closed synchronously in ``finally``)
or when the engine shuts down.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING

import trio
from quart import current_app, request

from ..errors import ValidationFailed
from ..events import KEEPALIVE, Event, EventFilter, EventLog, EventStream, StreamEnded
from .responses import Response

if TYPE_CHECKING:
    from ..limits import ClientStreams

KEEPALIVE_SECONDS = 10.0

Render = Callable[[Event], bytes | None]


def default_render(event: Event) -> bytes:
    return b"id: %d\ndata: %s\n\n" % (event.seq, event.data)


def resume_cursor(*query_names: str) -> int | None:
    """The seq to resume after: ``Last-Event-ID`` header, else a cursor query value."""
    raw = request.headers.get("Last-Event-ID")
    source = "Last-Event-ID"
    if not raw:
        for name in query_names or ("cursor",):
            raw = request.args.get(name)
            if raw:
                source = name
                break
    if not raw:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValidationFailed(
            f"`{source}` must be an event sequence number", field=source
        ) from None
    if value < 0:
        raise ValidationFailed(f"`{source}` must not be negative", field=source)
    return value


async def event_frames(
    log: EventLog,
    filter: EventFilter,
    *,
    after_seq: int | None,
    preamble: Iterable[bytes] = (),
    render: Render = default_render,
    keepalive: float = KEEPALIVE_SECONDS,
    until: Callable[[Event], bool] | None = None,
) -> AsyncIterator[bytes]:
    """SSE bytes: the preamble, then matching events (batched into one write), keep-alives.

    ``until`` ends the stream after the first event for which it is true.
    """
    stream = EventStream(log, filter, after_seq=after_seq)
    try:
        for chunk in preamble:
            yield chunk
        while True:
            with trio.move_on_after(keepalive) as idle:
                batch = await stream.receive()
            if idle.cancelled_caught:
                yield KEEPALIVE
                continue
            done = False
            frames = []
            for event in batch:
                rendered = render(event)
                if rendered:
                    frames.append(rendered)
                if until is not None and until(event):
                    done = True
                    break
            if frames:
                # One write per batch: merging frames is what makes fan-out cheap.
                yield b"".join(frames)
            if done:
                return
    except StreamEnded:
        return
    finally:
        # Synchronous on purpose: this may run inside a cancelled task.
        stream.close()


def sse_response(body: AsyncIterator[bytes], *, headers: dict[str, str] | None = None) -> Response:
    """The streaming response; it holds one of the client's stream slots while it lives
    (429 ``STREAM_LIMIT_REACHED`` with ``Retry-After`` when none is left)."""
    streams = current_app.config["SVC_ENGINE"].streams
    client = request.remote_addr or "unknown"
    streams.acquire(client)
    response = Response(
        held_stream(body, streams, client), status=200, mimetype="text/event-stream"
    )
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    for key, value in (headers or {}).items():
        response.headers[key] = value
    response.timeout = None  # a stream lives as long as its client
    return response


def held_stream(
    body: AsyncIterator[bytes], streams: ClientStreams, client: str
) -> AsyncIterator[bytes]:
    """``body``, giving its client's stream slot back when it ends.

    Quart closes the body after sending it, also when the client goes away; a body
    never started (the client left before the response began) is released when it is
    collected, so a slot is never lost.
    """

    async def relay() -> AsyncIterator[bytes]:
        try:
            async for chunk in body:
                yield chunk
        finally:
            release()  # synchronous and once only: safe inside a cancelled task
            close = getattr(body, "aclose", None)
            if close is not None:
                await close()

    stream = relay()
    release = weakref.finalize(stream, streams.release, client)
    return stream
