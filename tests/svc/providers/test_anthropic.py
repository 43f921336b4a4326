"""AnthropicProvider against a real loopback Messages API server."""

from __future__ import annotations

import httpx
import pytest

from svc.providers import AnthropicProvider
from svc.providers.endpoint import Endpoint
from svc.providers.types import (
    PROVIDER_SERVER_ERROR,
    RATE_LIMIT_EXCEEDED,
    ChatMessage,
    ChatRequest,
    ProviderError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from tests.fakes import FakeAnthropic, FakeToolCall, FakeUsage, StreamError, Turn

from ._support import API_KEY, FAST_RETRY

TOOLS = (
    ToolSpec(
        "web.search", "Search the web", {"type": "object", "properties": {"q": {"type": "string"}}}
    ),
)


def provider(server: FakeAnthropic, http: httpx.AsyncClient) -> AnthropicProvider:
    return AnthropicProvider(
        Endpoint("anthropic", server.url, api_key=API_KEY, default_model="claude-sonnet-4-6"),
        http,
        retry=FAST_RETRY,
    )


async def test_text_and_tool_use_stream(
    anthropic_server: FakeAnthropic, http: httpx.AsyncClient
) -> None:
    anthropic_server.enqueue(
        Turn.calls(
            FakeToolCall("web.search", {"q": "trio nurseries"}, id="toolu_9"),
            text="Let me search.",
            usage=FakeUsage(120, 33),
        )
    )
    events: list[StreamEvent] = []
    request = ChatRequest(
        model="claude-sonnet-4-6",
        tools=TOOLS,
        messages=(
            ChatMessage("system", "You are terse."),
            ChatMessage("system", "Cite sources."),
            ChatMessage("user", "What is a nursery?"),
        ),
    )
    completion = await provider(anthropic_server, http).chat(request, events.append)

    assert completion.text == "Let me search."
    assert completion.tool_calls == (
        ToolCall(
            "toolu_9",
            "web.search",
            {"q": "trio nurseries"},
            raw_arguments='{"q": "trio nurseries"}',
        ),
    )
    assert completion.usage == Usage(120, 33, 153) and completion.finish_reason == "tool_calls"
    assert [e for e in events if isinstance(e, TextDelta)] == [
        TextDelta("Let "),
        TextDelta("me "),
        TextDelta("search."),
    ]
    assert ToolCallDelta(0, "toolu_9", "web.search", "") in events
    assert events[-1] == Usage(120, 33, 153)

    sent = anthropic_server.requests[0]
    assert sent.path == "/v1/messages"
    assert (
        sent.headers["x-api-key"] == API_KEY and sent.headers["anthropic-version"] == "2023-06-01"
    )
    assert (
        sent.headers["content-type"] == "application/json" and "authorization" not in sent.headers
    )
    assert sent.body["system"] == "You are terse.\n\nCite sources."
    assert sent.body["max_tokens"] == 4096 and sent.body["stream"] is True
    assert sent.body["tools"][0]["name"] == "web_search" and sent.body["tool_choice"] == {
        "type": "auto"
    }
    assert sent.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What is a nursery?"}]}
    ]


async def test_tool_results_are_merged_into_one_user_turn(
    anthropic_server: FakeAnthropic, http: httpx.AsyncClient
) -> None:
    calls = (
        ToolCall("toolu_1", "web.search", {"q": "a"}),
        ToolCall("toolu_2", "web.search", {"q": "b"}),
    )
    history = (
        ChatMessage("user", "search a and b"),
        ChatMessage("assistant", "", tool_calls=calls),
        ChatMessage("tool", "result a", tool_call_id="toolu_1", name="web.search"),
        ChatMessage("tool", "no results", tool_call_id="toolu_2", name="web.search", is_error=True),
    )
    completion = await provider(anthropic_server, http).chat(
        ChatRequest(model="claude-sonnet-4-6", messages=history, tools=TOOLS)
    )
    assert completion.text == "search a and b"  # the fake's default echo
    messages = anthropic_server.requests[0].body["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "web_search", "input": {"q": "a"}},
            {"type": "tool_use", "id": "toolu_2", "name": "web_search", "input": {"q": "b"}},
        ],
    }
    assert messages[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "result a"},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": "no results",
                "is_error": True,
            },
        ],
    }


async def test_error_event_before_output_is_retried(
    anthropic_server: FakeAnthropic, http: httpx.AsyncClient
) -> None:
    anthropic_server.enqueue(
        Turn(stream_error=StreamError("overloaded_error", "Overloaded")), Turn.reply("ok")
    )
    completion = await provider(anthropic_server, http).chat(
        ChatRequest(model="m", messages=(ChatMessage("user", "x"),))
    )
    assert completion.text == "ok" and len(anthropic_server.requests) == 2


async def test_error_event_after_output_is_raised_with_partial_text(
    anthropic_server: FakeAnthropic, http: httpx.AsyncClient
) -> None:
    anthropic_server.enqueue(
        Turn(chunks=["Half an "], stream_error=StreamError("rate_limit_error", "slow down"))
    )
    with pytest.raises(ProviderError) as info:
        await provider(anthropic_server, http).chat(
            ChatRequest(model="m", messages=(ChatMessage("user", "x"),))
        )
    assert info.value.code == RATE_LIMIT_EXCEEDED and info.value.partial_text == "Half an "
    assert "slow down" in info.value.message and len(anthropic_server.requests) == 1


async def test_overloaded_http_529_is_a_server_error(
    anthropic_server: FakeAnthropic, http: httpx.AsyncClient
) -> None:
    anthropic_server.enqueue(*[Turn.failure(529, "Overloaded")] * 3)
    with pytest.raises(ProviderError) as info:
        await provider(anthropic_server, http).chat(
            ChatRequest(model="m", messages=(ChatMessage("user", "x"),))
        )
    assert info.value.code == PROVIDER_SERVER_ERROR and info.value.upstream_status == 529
    assert len(anthropic_server.requests) == 3


async def test_context_length_error_from_http_400(
    anthropic_server: FakeAnthropic, http: httpx.AsyncClient
) -> None:
    anthropic_server.enqueue(
        Turn.failure(400, "prompt is too long: 210000 tokens > 200000 maximum")
    )
    with pytest.raises(ProviderError) as info:
        await provider(anthropic_server, http).chat(
            ChatRequest(model="m", messages=(ChatMessage("user", "x"),))
        )
    assert info.value.code == "CONTEXT_LENGTH_EXCEEDED"


async def test_stream_without_message_stop_is_interrupted(
    anthropic_server: FakeAnthropic, http: httpx.AsyncClient
) -> None:
    anthropic_server.enqueue(Turn(chunks=["almost"], omit_terminator=True))
    with pytest.raises(ProviderError) as info:
        await provider(anthropic_server, http).chat(
            ChatRequest(model="m", messages=(ChatMessage("user", "x"),))
        )
    assert info.value.code == "PROVIDER_STREAM_INTERRUPTED" and info.value.partial_text == "almost"
