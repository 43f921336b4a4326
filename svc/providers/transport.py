"""One streamed chat request over HTTP: retries, backoff and failure mapping.

Wire modules build the URL, headers and body and supply a :class:`WireStream`
(a pure parser); :func:`stream_chat` does the I/O. A request is retried only
while nothing has reached the sink yet, so a caller never sees a delta twice:
connect errors and timeouts, HTTP 429 and 5xx, a stream that broke before its
first event, and retryable in-stream errors (Anthropic ``overloaded_error``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

import httpx
import trio

from .failures import (
    clean,
    error_for_status,
    error_for_transport,
    provider_error,
    stream_interrupted,
)
from .retry import RetryPolicy
from .types import PROVIDER_REQUEST_INVALID, Completion, ProviderError, Sink, StreamEvent

log = logging.getLogger(__name__)

T = TypeVar("T")

# Models think before the first token and between tool calls; reads get two minutes.
TIMEOUT = httpx.Timeout(120.0, connect=10.0)
MAX_ERROR_BODY = 64 * 1024
DEFAULT_RETRY = RetryPolicy()


class WireStream(Protocol):
    """A wire format's response parser: pure, one instance per attempt."""

    @property
    def finished(self) -> bool:
        """The wire's terminator arrived (``[DONE]``, ``message_stop`` ...)."""
        ...

    def feed(self, line: str) -> Sequence[StreamEvent]:
        """One response line; raise :class:`ProviderError` for an in-stream error."""
        ...

    def feed_body(self, body: Any) -> Sequence[StreamEvent]:
        """A whole non-streaming JSON response (servers that ignore ``stream: true``)."""
        ...

    def close(self) -> Sequence[StreamEvent]:
        """The body ended cleanly: flush pending state (may set :attr:`finished`)."""
        ...

    def completion(self) -> Completion:
        """The aggregate so far (complete once :attr:`finished`)."""
        ...


def _discard(event: StreamEvent) -> None:
    return None


def retry_delay(
    policy: RetryPolicy, attempt: int, headers: Mapping[str, str] | None = None
) -> float:
    """Seconds to wait after failed ``attempt`` (1-based).

    Upstream's hint if any, else linear backoff.
    """
    if headers is not None:
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            value = headers.get(name)
            if value is None:
                continue
            try:
                seconds = float(value) * scale
            except ValueError:
                continue  # an HTTP-date: not worth a clock dependency, use our backoff
            if seconds >= 0:
                return min(seconds, policy.max_retry_after)
    return policy.base_delay * attempt


def _is_json(response: httpx.Response) -> bool:
    return (
        response.headers.get("content-type", "").split(";")[0].strip().lower() == "application/json"
    )


class _Attempt:
    """One HTTP attempt: its parser, and whether anything reached the sink yet."""

    def __init__(self, wire: WireStream, emit: Sink) -> None:
        self.wire = wire
        self.emit = emit
        self.emitted = False
        self.responded = False

    def deliver(self, events: Iterable[StreamEvent]) -> None:
        for event in events:
            self.emitted = True
            self.emit(event)

    def on_line(self, line: str) -> bool:
        # After the terminator, keep draining (ignoring) what follows so the
        # connection can go back to the pool.
        wire = self.wire
        if not wire.finished:
            events = wire.feed(line)
            if events:  # most lines (blank separators) yield nothing
                self.emitted = True
                for event in events:
                    self.emit(event)
        return True


async def stream_chat(
    http: httpx.AsyncClient,
    *,
    provider: str,
    url: str,
    headers: Mapping[str, str],
    body: Mapping[str, Any],
    new_stream: Callable[[], WireStream],
    sink: Sink | None = None,
    retry: RetryPolicy = DEFAULT_RETRY,
    secret: str | None = None,
) -> Completion:
    """POST ``body`` to ``url``, parse the response with ``new_stream()``, feed ``sink``.

    ``new_stream`` is a zero-argument factory returning a :class:`WireStream`;
    every attempt gets a fresh one. ``secret`` (the API key) is scrubbed from
    every error message in addition to the globally registered secrets.
    """
    payload = json.dumps(body, ensure_ascii=False).encode()
    request_headers = {"content-type": "application/json", "accept": "text/event-stream", **headers}
    attempt = 0
    while True:
        attempt += 1
        last = attempt >= retry.attempts
        state = _Attempt(new_stream(), sink or _discard)
        wire = state.wire
        status_error: tuple[ProviderError, float] | None = None
        try:
            async with http.stream(
                "POST", url, headers=request_headers, content=payload, timeout=TIMEOUT
            ) as response:
                state.responded = True
                if response.status_code >= 400:
                    raw = await _read_bounded(response)
                    error = error_for_status(provider, response.status_code, raw, secret=secret)
                    if not error.retryable or last:
                        raise error
                    # Back off after the response is closed, not while holding its connection.
                    status_error = (error, retry_delay(retry, attempt, response.headers))
                elif _is_json(response):
                    try:
                        data = json.loads(await response.aread())
                    except ValueError:
                        raise provider_error(
                            provider,
                            PROVIDER_REQUEST_INVALID,
                            f"provider `{provider}` sent a response that is not valid JSON",
                        ) from None
                    state.deliver(wire.feed_body(data))
                else:
                    await consume(response.aiter_lines(), state.on_line)
                    state.deliver(wire.close())
        except httpx.RequestError as exc:
            if wire.finished:
                # The answer was complete; only the tail of the connection broke.
                return wire.completion()
            reason = f"{type(exc).__name__}: {exc}"
            if state.emitted:
                raise stream_interrupted(
                    provider, reason, wire.completion(), secret=secret
                ) from None
            if not last:
                await _backoff(provider, attempt, retry_delay(retry, attempt), exc)
                continue
            if state.responded:
                raise stream_interrupted(
                    provider, reason, wire.completion(), secret=secret
                ) from None
            raise error_for_transport(provider, exc, _without_query(url), secret=secret) from None
        except ProviderError as exc:
            if state.emitted:
                if exc.partial is None:
                    exc.partial = wire.completion()
                raise
            if exc.retryable and not last and exc.upstream_status is None:
                # An in-stream error (overloaded, rate limited) before any output.
                await _backoff(provider, attempt, retry_delay(retry, attempt), exc)
                continue
            raise
        if status_error is not None:
            await _backoff(provider, attempt, status_error[1], status_error[0])
            continue
        if wire.finished:
            return wire.completion()
        if not state.emitted and not last:
            await _backoff(provider, attempt, retry_delay(retry, attempt), "empty response")
            continue
        raise stream_interrupted(
            provider,
            "the response ended before the stream was complete",
            wire.completion(),
            secret=secret,
        )


async def consume(items: AsyncIterator[T], handle: Callable[[T], bool]) -> None:
    """Pass each item to ``handle`` until the iterator ends or ``handle`` returns False or raises.

    Leaving an httpx stream iterator early would abandon its chain of nested
    async generators (trio warns about each one when it is collected). Instead
    the loop's cancel scope is cancelled: the next read raises Cancelled inside
    the innermost generator, which unwinds (and closes) the whole chain; the
    scope then absorbs the Cancelled. An exception from ``handle`` is re-raised
    once the chain is closed.
    """
    failure: BaseException | None = None
    stopped = False  # (a local flag: scope.cancel_called reads the clock, once per streamed line)
    with trio.CancelScope() as scope:
        async for item in items:
            if stopped:
                continue  # already buffered; the next real read raises Cancelled
            try:
                keep_going = handle(item)
            except BaseException as exc:  # re-raised below, after the chain is closed
                failure, keep_going = exc, False
            if not keep_going:
                stopped = True
                scope.cancel()
    if failure is not None:
        raise failure


async def _read_bounded(response: httpx.Response) -> str:
    """An error body, at most :data:`MAX_ERROR_BODY` bytes (only a bounded excerpt is reported)."""
    chunks: list[bytes] = []
    size = 0

    def on_chunk(chunk: bytes) -> bool:
        nonlocal size
        chunks.append(chunk)
        size += len(chunk)
        return size < MAX_ERROR_BODY

    await consume(response.aiter_bytes(), on_chunk)
    return b"".join(chunks)[:MAX_ERROR_BODY].decode("utf-8", "replace")


async def _backoff(provider: str, attempt: int, delay: float, cause: object) -> None:
    # Retrying is safe: nothing of this attempt reached the sink.
    log.warning(
        "provider request failed; retrying",
        extra={
            "provider": provider,
            "attempt": attempt,
            "delay_s": round(delay, 3),
            "cause": clean(str(cause) or type(cause).__name__),
        },
    )
    await trio.sleep(delay)


def _without_query(url: str) -> str:
    return url.split("?", 1)[0]
