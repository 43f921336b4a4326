"""Retries, backoff and failure mapping, against real loopback servers."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator

import httpx
import pytest
import trio

from svc.providers import OpenAICompatProvider
from svc.providers.endpoint import Endpoint
from svc.providers.transport import RetryPolicy, retry_delay
from svc.providers.types import (
    AUTHENTICATION_ERROR,
    CONTEXT_LENGTH_EXCEEDED,
    PROVIDER_REQUEST_INVALID,
    PROVIDER_SERVER_ERROR,
    PROVIDER_STREAM_INTERRUPTED,
    PROVIDER_UNAVAILABLE,
    RATE_LIMIT_EXCEEDED,
    ChatMessage,
    ChatRequest,
    ProviderError,
    StreamEvent,
    TextDelta,
)
from tests.fakes import FakeOpenAI, Turn

from ._support import API_KEY, FAST_RETRY

REQUEST = ChatRequest(model="gpt-4o", messages=(ChatMessage("user", "hi"),))


def provider(
    url: str, http: httpx.AsyncClient, *, retry: RetryPolicy = FAST_RETRY, api_key: str = API_KEY
) -> OpenAICompatProvider:
    return OpenAICompatProvider(Endpoint("openai", url, api_key=api_key), http, retry=retry)


@pytest.fixture
def dead_url() -> Iterator[str]:
    """A loopback port that is bound but not listening: connections are refused."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        sock.close()


# ---------------------------------------------------------------------- pure
def test_retry_delay_prefers_upstream_hint_capped_at_ten_seconds() -> None:
    policy = RetryPolicy(base_delay=0.3)
    assert retry_delay(policy, 1) == pytest.approx(0.3)
    assert retry_delay(policy, 2) == pytest.approx(0.6)
    assert retry_delay(policy, 1, {"retry-after": "2"}) == 2.0
    assert retry_delay(policy, 1, {"retry-after": "120"}) == 10.0
    assert retry_delay(policy, 1, {"retry-after-ms": "250"}) == pytest.approx(0.25)
    assert retry_delay(
        policy, 2, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}
    ) == pytest.approx(0.6)


# ---------------------------------------------------------------------- retries
async def test_server_error_is_retried_then_succeeds(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn.failure(500), Turn.failure(502), Turn.reply("finally"))
    completion = await provider(openai_server.url, http).chat(REQUEST)
    assert completion.text == "finally"
    assert len(openai_server.requests) == 3


async def test_rate_limit_honors_retry_after(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn.failure(429, "slow down", retry_after=0.05), Turn.reply("ok"))
    started = trio.current_time()
    completion = await provider(openai_server.url, http, retry=RetryPolicy(base_delay=0.0)).chat(
        REQUEST
    )
    assert completion.text == "ok" and len(openai_server.requests) == 2
    assert trio.current_time() - started >= 0.05


async def test_retries_are_bounded(openai_server: FakeOpenAI, http: httpx.AsyncClient) -> None:
    openai_server.enqueue(*[Turn.failure(503, "down for maintenance")] * 5)
    with pytest.raises(ProviderError) as info:
        await provider(openai_server.url, http).chat(REQUEST)
    error = info.value
    assert len(openai_server.requests) == 3
    assert (error.code, error.upstream_status, error.retryable, error.provider) == (
        PROVIDER_SERVER_ERROR,
        503,
        True,
        "openai",
    )
    assert error.message == "provider `openai` returned HTTP 503: down for maintenance"


async def test_exhausted_rate_limit_is_rate_limit_exceeded(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(*[Turn.failure(429, "quota")] * 3)
    with pytest.raises(ProviderError) as info:
        await provider(openai_server.url, http).chat(REQUEST)
    assert info.value.code == RATE_LIMIT_EXCEEDED and info.value.retryable


@pytest.mark.parametrize(
    ("status", "message", "code"),
    [
        (401, "Incorrect API key provided", AUTHENTICATION_ERROR),
        (403, "forbidden", AUTHENTICATION_ERROR),
        (400, "This model's maximum context length is 8192 tokens", CONTEXT_LENGTH_EXCEEDED),
        (400, "error code: context_length_exceeded", CONTEXT_LENGTH_EXCEEDED),
        (413, "too many tokens in request", CONTEXT_LENGTH_EXCEEDED),
        (422, "prompt is too long", CONTEXT_LENGTH_EXCEEDED),
        (400, "unknown parameter foo", PROVIDER_REQUEST_INVALID),
        (404, "model not found", PROVIDER_REQUEST_INVALID),
    ],
)
async def test_client_errors_fail_without_retry(
    openai_server: FakeOpenAI, http: httpx.AsyncClient, status: int, message: str, code: str
) -> None:
    openai_server.enqueue(Turn.failure(status, message))
    with pytest.raises(ProviderError) as info:
        await provider(openai_server.url, http).chat(REQUEST)
    assert info.value.code == code and not info.value.retryable
    assert info.value.upstream_status == status and message in info.value.message
    assert len(openai_server.requests) == 1


async def test_upstream_message_is_bounded(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn.failure(400, "x" * 5000))
    with pytest.raises(ProviderError) as info:
        await provider(openai_server.url, http).chat(REQUEST)
    detail = info.value.message.split(": ", 1)[1]
    assert len(detail) <= 500


async def test_non_json_error_body_is_reported_as_text(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn.failure(400, body={"detail": "bad things"}))
    with pytest.raises(ProviderError, match="HTTP 400: bad things"):
        await provider(openai_server.url, http).chat(REQUEST)


async def test_connection_refused_is_provider_unavailable(
    dead_url: str, http: httpx.AsyncClient
) -> None:
    with pytest.raises(ProviderError) as info:
        await provider(dead_url, http).chat(REQUEST)
    error = info.value
    assert error.code == PROVIDER_UNAVAILABLE and error.retryable and error.upstream_status is None
    assert error.message.startswith("provider `openai` is unreachable (http://127.0.0.1:")


# ---------------------------------------------------------------------- broken streams
async def test_stream_dropped_after_output_is_interrupted_with_partial_text(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn(chunks=["Once ", "upon ", "a ", "time"], drop_after=2))
    events: list[StreamEvent] = []
    with pytest.raises(ProviderError) as info:
        await provider(openai_server.url, http).chat(REQUEST, events.append)
    error = info.value
    assert error.code == PROVIDER_STREAM_INTERRUPTED and error.retryable
    assert error.partial_text == "Once upon " and error.partial is not None
    assert events == [TextDelta("Once "), TextDelta("upon ")]
    assert len(openai_server.requests) == 1  # never retried once output reached the sink


async def test_stream_dropped_before_output_is_retried(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn(chunks=["lost"], drop_after=0), Turn.reply("second try"))
    events: list[StreamEvent] = []
    completion = await provider(openai_server.url, http).chat(REQUEST, events.append)
    assert completion.text == "second try" and len(openai_server.requests) == 2
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["second ", "try"]


async def test_in_stream_error_after_output_keeps_partial_text(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    from tests.fakes import StreamError

    openai_server.enqueue(
        Turn(chunks=["partial"], stream_error=StreamError("server_error", "upstream died"))
    )
    with pytest.raises(ProviderError) as info:
        await provider(openai_server.url, http).chat(REQUEST)
    assert info.value.code == PROVIDER_SERVER_ERROR and info.value.partial_text == "partial"
    assert len(openai_server.requests) == 1


async def test_sink_exceptions_propagate_unwrapped(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    def sink(event: StreamEvent) -> None:
        raise KeyError("sink broke")

    with pytest.raises(KeyError, match="sink broke"):
        await provider(openai_server.url, http).chat(REQUEST, sink)
    assert len(openai_server.requests) == 1


async def test_cancellation_mid_stream_is_clean(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    gate = trio.Event()
    openai_server.enqueue(Turn(chunks=["first ", "never"], gate=gate, gate_after=1))
    first = trio.Event()
    client = provider(openai_server.url, http)

    def sink(event: StreamEvent) -> None:
        first.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.chat, REQUEST, sink)
        await first.wait()
        nursery.cancel_scope.cancel()
    gate.set()
    # The client (and its pool) is still good for the next request.
    assert (await client.chat(REQUEST)).text == "hi"


# ---------------------------------------------------------------------- secrets
async def test_api_key_never_appears_in_errors_or_logs(
    openai_server: FakeOpenAI,
    dead_url: str,
    http: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = "sk-live-DO-NOT-LEAK-4242424242"
    caplog.set_level(logging.DEBUG)
    errors: list[ProviderError] = []
    openai_server.enqueue(
        Turn.failure(500, f"internal error for key {key}"),  # logged as a retry cause
        Turn.failure(401, f"Incorrect API key provided: {key}"),
        Turn(chunks=[f"echo {key}", "more"], drop_after=1),
    )
    client = provider(openai_server.url, http, api_key=key)
    for _ in range(2):
        with pytest.raises(ProviderError) as info:
            await client.chat(REQUEST)
        errors.append(info.value)
    with pytest.raises(ProviderError) as info:
        await provider(dead_url, http, api_key=key).chat(REQUEST)
    errors.append(info.value)

    assert [e.code for e in errors] == [
        AUTHENTICATION_ERROR,
        PROVIDER_STREAM_INTERRUPTED,
        PROVIDER_UNAVAILABLE,
    ]
    assert "[REDACTED]" in errors[0].message
    for error in errors:
        assert key not in error.message and key not in str(error.to_body())
    assert caplog.records, "the retries were logged"
    for record in caplog.records:
        assert key not in record.getMessage()
        assert key not in str(record.__dict__)


async def test_clean_end_without_terminator_is_interrupted(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn(chunks=["cut ", "short"], omit_terminator=True))
    with pytest.raises(ProviderError) as info:
        await provider(openai_server.url, http).chat(REQUEST)
    assert info.value.code == PROVIDER_STREAM_INTERRUPTED and info.value.partial_text == "cut short"
    assert "ended before the stream was complete" in info.value.message
    assert len(openai_server.requests) == 1


async def test_empty_stream_is_retried_then_interrupted(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(*[Turn(omit_terminator=True)] * 3)
    with pytest.raises(ProviderError) as info:
        await provider(openai_server.url, http).chat(REQUEST)
    assert info.value.code == PROVIDER_STREAM_INTERRUPTED and info.value.partial_text == ""
    assert len(openai_server.requests) == 3
