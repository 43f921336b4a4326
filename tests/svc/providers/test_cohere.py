"""CohereProvider against a real loopback v2 chat server."""

from __future__ import annotations

import httpx
import pytest

from svc.providers import CohereProvider
from svc.providers.endpoint import Endpoint
from svc.providers.types import (
    PROVIDER_STREAM_INTERRUPTED,
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
from tests.fakes import FakeCohere, FakeToolCall, FakeUsage, Turn

from ._support import API_KEY, FAST_RETRY

TOOLS = (
    ToolSpec("db.query", "Run SQL", {"type": "object", "properties": {"sql": {"type": "string"}}}),
)


def provider(server: FakeCohere, http: httpx.AsyncClient) -> CohereProvider:
    return CohereProvider(Endpoint("cohere", server.url, api_key=API_KEY), http, retry=FAST_RETRY)


async def test_text_stream_with_usage(cohere_server: FakeCohere, http: httpx.AsyncClient) -> None:
    cohere_server.enqueue(Turn.reply("Bonjour tout le monde", usage=FakeUsage(42, 5)))
    events: list[StreamEvent] = []
    request = ChatRequest(
        model="command-r-plus",
        temperature=0.4,
        top_p=0.5,
        max_tokens=99,
        messages=(ChatMessage("system", "Réponds en français."), ChatMessage("user", "Salut")),
    )
    completion = await provider(cohere_server, http).chat(request, events.append)
    assert completion.text == "Bonjour tout le monde" and completion.finish_reason == "stop"
    assert events[:2] == [TextDelta("Bonjour "), TextDelta("tout ")] and events[-1] == Usage(
        42, 5, 47
    )
    sent = cohere_server.requests[0]
    assert sent.path == "/v2/chat" and sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.body == {
        "model": "command-r-plus",
        "stream": True,
        "temperature": 0.4,
        "p": 0.5,
        "max_tokens": 99,
        "messages": [
            {"role": "system", "content": "Réponds en français."},
            {"role": "user", "content": "Salut"},
        ],
    }


async def test_tool_call_stream(cohere_server: FakeCohere, http: httpx.AsyncClient) -> None:
    cohere_server.enqueue(
        Turn.calls(FakeToolCall("db.query", {"sql": "select 1"}, id="q_1"), text="I will query.")
    )
    events: list[StreamEvent] = []
    history = (
        ChatMessage("user", "count rows"),
        ChatMessage(
            "assistant", "Checking.", tool_calls=(ToolCall("q_0", "db.query", {"sql": "select 0"}),)
        ),
        ChatMessage("tool", "0", tool_call_id="q_0", name="db.query"),
    )
    completion = await provider(cohere_server, http).chat(
        ChatRequest(model="command-r-plus", messages=history, tools=TOOLS), events.append
    )
    assert completion.text == "I will query." and completion.finish_reason == "tool_calls"
    assert completion.tool_calls == (
        ToolCall("q_1", "db.query", {"sql": "select 1"}, raw_arguments='{"sql": "select 1"}'),
    )
    assert ToolCallDelta(0, "q_1", "db.query", "") in events
    assert isinstance(events[-1], Usage)
    body = cohere_server.requests[0].body
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "db_query",
                "description": "Run SQL",
                "parameters": dict(TOOLS[0].parameters),
            },
        }
    ]
    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "tool_plan": "Checking.",
            "tool_calls": [
                {
                    "id": "q_0",
                    "type": "function",
                    "function": {"name": "db_query", "arguments": '{"sql":"select 0"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "q_0", "content": "0"},
    ]


async def test_stream_without_message_end_is_interrupted(
    cohere_server: FakeCohere, http: httpx.AsyncClient
) -> None:
    cohere_server.enqueue(Turn(chunks=["almost"], omit_terminator=True))
    with pytest.raises(ProviderError) as info:
        await provider(cohere_server, http).chat(
            ChatRequest(model="m", messages=(ChatMessage("user", "x"),))
        )
    assert info.value.code == PROVIDER_STREAM_INTERRUPTED and info.value.partial_text == "almost"
