"""OpenAICompatProvider against a real loopback OpenAI-style server."""

from __future__ import annotations

import httpx

from svc.providers import OpenAICompatProvider
from svc.providers.endpoint import Endpoint
from svc.providers.types import (
    ChatMessage,
    ChatRequest,
    Image,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from tests.fakes import FakeOpenAI, FakeToolCall, FakeUsage, Turn

from ._support import API_KEY, FAST_RETRY


def provider(
    server: FakeOpenAI,
    http: httpx.AsyncClient,
    provider_id: str = "openai",
    *,
    api_key: str | None = API_KEY,
    vision: bool = True,
    **kwargs: object,
) -> OpenAICompatProvider:
    endpoint = Endpoint(
        provider_id, server.url, api_key=api_key, default_model="gpt-4o", supports_vision=vision
    )
    return OpenAICompatProvider(endpoint, http, retry=FAST_RETRY, **kwargs)  # type: ignore[arg-type]


def ask(text: str, **kwargs: object) -> ChatRequest:
    return ChatRequest(
        model=kwargs.pop("model", "gpt-4o"),
        messages=(ChatMessage("user", text),),  # type: ignore[arg-type]
        **kwargs,
    )  # type: ignore[arg-type]


async def test_streamed_text_reaches_the_sink_in_order(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn(chunks=["The ", "quick ", "brown ", "fox"], usage=FakeUsage(11, 4)))
    events: list[StreamEvent] = []
    completion = await provider(openai_server, http).chat(ask("go"), events.append)
    assert events == [
        TextDelta("The "),
        TextDelta("quick "),
        TextDelta("brown "),
        TextDelta("fox"),
        Usage(prompt_tokens=11, completion_tokens=4, total_tokens=15),
    ]
    assert completion.text == "The quick brown fox"
    assert completion.usage == Usage(11, 4, 15) and completion.finish_reason == "stop"
    assert completion.model == "gpt-4o"
    sent = openai_server.requests[0]
    assert sent.method == "POST" and sent.path == "/v1/chat/completions"
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["messages"] == [{"role": "user", "content": "go"}]


async def test_without_usage_the_completion_has_none(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn.reply("hi", usage=None))
    events: list[StreamEvent] = []
    completion = await provider(openai_server, http).chat(ask("x"), events.append)
    assert completion.usage is None and not any(isinstance(e, Usage) for e in events)


async def test_tool_calls_split_across_chunks_map_back_to_tool_names(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    tools = (
        ToolSpec("mcp.fs.read", "Read", {"type": "object"}),
        ToolSpec("mcp_fs.read", "Other", {"type": "object"}),
    )
    openai_server.enqueue(
        Turn.calls(
            FakeToolCall("mcp_fs_read", {"path": "notes/today.md", "lines": [1, 2]}, id="call_a"),
            FakeToolCall("mcp_fs_read_2", {"path": "b"}, id="call_b"),
            text="Reading both.",
            argument_chunk=3,
        )
    )
    events: list[StreamEvent] = []
    completion = await provider(openai_server, http).chat(ask("read", tools=tools), events.append)

    offered = [t["function"]["name"] for t in openai_server.requests[0].body["tools"]]
    assert offered == ["mcp_fs_read", "mcp_fs_read_2"]
    assert openai_server.requests[0].body["tool_choice"] == "auto"
    assert completion.text == "Reading both." and completion.finish_reason == "tool_calls"
    assert completion.tool_calls == (
        ToolCall(
            "call_a",
            "mcp.fs.read",
            {"path": "notes/today.md", "lines": [1, 2]},
            raw_arguments='{"path": "notes/today.md", "lines": [1, 2]}',
        ),
        ToolCall("call_b", "mcp_fs.read", {"path": "b"}, raw_arguments='{"path": "b"}'),
    )
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert deltas[0] == ToolCallDelta(0, "call_a", "mcp.fs.read", "")
    assert len([d for d in deltas if d.index == 0]) > 5  # the arguments really came in pieces
    assert "".join(d.arguments_delta for d in deltas if d.index == 1) == '{"path": "b"}'


async def test_invalid_argument_json_does_not_crash(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    openai_server.enqueue(Turn.calls(FakeToolCall("f", raw_arguments='{"a": ')))
    completion = await provider(openai_server, http).chat(ask("x", tools=(ToolSpec("f", "", {}),)))
    (call,) = completion.tool_calls
    assert call.arguments == {} and call.raw_arguments == '{"a": '


async def test_history_serializes_assistant_tool_calls_and_tool_results(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    history = (
        ChatMessage("system", "sys"),
        ChatMessage("user", "list files"),
        ChatMessage("assistant", "Sure.", tool_calls=(ToolCall("c1", "fs.ls", {"dir": "."}),)),
        ChatMessage("tool", "a.txt\nb.txt", tool_call_id="c1", name="fs.ls"),
    )
    request = ChatRequest(
        model="gpt-4o",
        messages=history,
        tools=(ToolSpec("fs.ls", "List", {"type": "object"}),),
        tool_choice="required",
    )
    await provider(openai_server, http).chat(request)
    body = openai_server.requests[0].body
    assert body["tool_choice"] == "required"
    assert body["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "list files"},
        {
            "role": "assistant",
            "content": "Sure.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "fs_ls", "arguments": '{"dir":"."}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt\nb.txt"},
    ]


async def test_images_are_sent_only_to_vision_providers(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    message = ChatMessage(
        "user", "what is this?", images=(Image("data:image/png;base64,iVBORw0K"),)
    )
    request = ChatRequest(model="m", messages=(message,))
    await provider(openai_server, http, "openai", vision=True).chat(request)
    await provider(openai_server, http, "groq", vision=False).chat(request)
    with_image, without = (r.body["messages"][0]["content"] for r in openai_server.requests)
    assert with_image == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}},
    ]
    assert without == "what is this?"


async def test_bearer_auth_is_sent_except_to_ollama(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    await provider(openai_server, http, "openai").chat(ask("a"))
    await provider(openai_server, http, "ollama").chat(ask("b"))
    await provider(openai_server, http, "together", api_key=None).chat(ask("c"))
    openai_req, ollama_req, keyless_req = openai_server.requests
    assert openai_req.headers["authorization"] == f"Bearer {API_KEY}"
    assert "authorization" not in ollama_req.headers
    assert "authorization" not in keyless_req.headers
    assert openai_req.headers["content-type"] == "application/json"


async def test_openrouter_sends_referer_and_title(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    await provider(openai_server, http, "openrouter", title="Acme Bot").chat(ask("a"))
    await provider(openai_server, http, "openai").chat(ask("b"))
    router, plain = openai_server.requests
    assert (
        router.headers["http-referer"] == "https://svc.local"
        and router.headers["x-title"] == "Acme Bot"
    )
    assert "x-title" not in plain.headers and "http-referer" not in plain.headers


async def test_azure_sends_api_key_header_and_api_version(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    endpoint = Endpoint(
        "azure",
        openai_server.root_url + "/openai/deployments/gpt4",
        api_key=API_KEY,
        params={"api-version": "2024-10-21"},
    )
    await OpenAICompatProvider(endpoint, http, retry=FAST_RETRY).chat(ask("a"))
    sent = openai_server.requests[0]
    assert (
        sent.path == "/openai/deployments/gpt4/chat/completions"
        and sent.query == "api-version=2024-10-21"
    )
    assert (
        sent.headers["api-key"] == API_KEY and sent.headers["authorization"] == f"Bearer {API_KEY}"
    )


async def test_sampling_for_gpt5_drops_temperature(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    await provider(openai_server, http).chat(
        ask("a", model="gpt-5.2", temperature=0.7, max_tokens=64)
    )
    await provider(openai_server, http).chat(
        ask("b", model="gpt-4o", temperature=9.0, top_p=0.5, max_tokens=64)
    )
    reasoning, classic = (r.body for r in openai_server.requests)
    assert "temperature" not in reasoning and reasoning["max_completion_tokens"] == 64
    assert classic["temperature"] == 2.0 and classic["top_p"] == 0.5 and classic["max_tokens"] == 64


async def test_default_turn_echoes_the_last_user_message(
    openai_server: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    completion = await provider(openai_server, http).chat(ask("echo me please"))
    assert completion.text == "echo me please" and completion.usage is not None
