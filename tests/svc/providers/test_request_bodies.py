"""Request bodies and headers of each wire, built without any I/O."""

from __future__ import annotations

import pytest

from svc.providers import anthropic, cohere, openai_compat
from svc.providers.endpoint import Endpoint, join_url
from svc.providers.tool_names import ToolNameMap
from svc.providers.types import ChatMessage, ChatRequest, Image, ToolCall, ToolSpec

TOOL = ToolSpec(
    "mcp.fs.read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)
CALL = ToolCall(
    id="call_1", name="mcp.fs.read", arguments={"path": "a.txt"}, raw_arguments='{"path":"a.txt"}'
)
HISTORY = (
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "Read a.txt"),
    ChatMessage("assistant", "", tool_calls=(CALL,)),
    ChatMessage("tool", "hello", tool_call_id="call_1", name="mcp.fs.read"),
)


def request(**kwargs: object) -> ChatRequest:
    base: dict[str, object] = {"model": "gpt-4o", "messages": HISTORY, "tools": (TOOL,)}
    base.update(kwargs)
    return ChatRequest(**base)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- OpenAI
def test_openai_body_maps_tools_history_and_sampling() -> None:
    body = openai_compat.build_body(
        request(temperature=3.5, top_p=0.9, max_tokens=100), ToolNameMap(), vision=True
    )
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "mcp_fs_read",
                "description": "Read a file",
                "parameters": dict(TOOL.parameters),
            },
        }
    ]
    assert body["tool_choice"] == "auto"
    assert body["temperature"] == 2.0 and body["top_p"] == 0.9 and body["max_tokens"] == 100
    assert body["messages"][2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "mcp_fs_read", "arguments": '{"path":"a.txt"}'},
            }
        ],
    }
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "hello"}


@pytest.mark.parametrize(
    "model", ["o1", "o3", "o1-mini", "o3-pro", "o4-mini", "gpt-5", "gpt-5.2", "openai/gpt-5-mini"]
)
def test_reasoning_models_drop_sampling_and_use_max_completion_tokens(model: str) -> None:
    body = openai_compat.build_body(
        request(model=model, temperature=0.5, top_p=0.5, max_tokens=10), ToolNameMap(), vision=True
    )
    assert "temperature" not in body and "top_p" not in body
    assert body["max_completion_tokens"] == 10 and "max_tokens" not in body


@pytest.mark.parametrize("model", ["gpt-4o", "o1x", "gpt-4.1", "llama3.1:8b"])
def test_other_models_keep_temperature(model: str) -> None:
    body = openai_compat.build_body(
        request(model=model, temperature=-1), ToolNameMap(), vision=True
    )
    assert body["temperature"] == 0.0


def test_openai_images_only_for_vision_and_no_tools_means_no_tool_choice() -> None:
    msg = ChatMessage("user", "look", images=(Image("https://x/cat.png"),))
    with_vision = openai_compat.build_body(
        request(messages=(msg,), tools=()), ToolNameMap(), vision=True
    )
    assert with_vision["messages"][0]["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://x/cat.png"}},
    ]
    assert "tools" not in with_vision and "tool_choice" not in with_vision
    without = openai_compat.build_body(
        request(messages=(msg,), tools=()), ToolNameMap(), vision=False
    )
    assert without["messages"][0] == {"role": "user", "content": "look"}


def test_openai_tool_result_without_call_id_becomes_user_text() -> None:
    msg = ChatMessage("tool", "boom", name="bash", is_error=True)
    body = openai_compat.build_body(request(messages=(msg,)), ToolNameMap(), vision=True)
    assert body["messages"][0] == {"role": "user", "content": "Tool `bash` result:\nERROR: boom"}


def test_openai_headers_per_provider() -> None:
    plain = openai_compat.build_headers(Endpoint("openai", "u", api_key="k1"))
    assert plain == {"authorization": "Bearer k1"}
    assert openai_compat.build_headers(Endpoint("ollama", "u", api_key="k1")) == {}
    assert openai_compat.build_headers(Endpoint("azure", "u", api_key="k1")) == {
        "authorization": "Bearer k1",
        "api-key": "k1",
    }
    router = openai_compat.build_headers(Endpoint("openrouter", "u", api_key="k1"), title="My App")
    assert router["http-referer"] == "https://svc.local" and router["x-title"] == "My App"


def test_join_url_keeps_query_and_adds_missing_params() -> None:
    assert join_url("http://h/v1/", "chat/completions") == "http://h/v1/chat/completions"
    assert (
        join_url("http://h/d?api-version=1", "chat/completions", {"api-version": "2"})
        == "http://h/d/chat/completions?api-version=1"
    )
    assert (
        join_url("http://h/d", "chat/completions", {"api-version": "2"})
        == "http://h/d/chat/completions?api-version=2"
    )


# ---------------------------------------------------------------------- Anthropic
def test_anthropic_body_system_blocks_and_tools() -> None:
    body = anthropic.build_body(
        request(model="claude", temperature=1.7, top_p=0.3), ToolNameMap(), vision=True
    )
    assert body["system"] == "Be brief."
    assert body["max_tokens"] == 4096 and body["temperature"] == 1.0 and "top_p" not in body
    assert body["tools"] == [
        {"name": "mcp_fs_read", "description": "Read a file", "input_schema": dict(TOOL.parameters)}
    ]
    assert body["tool_choice"] == {"type": "auto"}
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Read a.txt"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "name": "mcp_fs_read",
                    "input": {"path": "a.txt"},
                }
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "hello"}],
        },
    ]


def test_anthropic_consecutive_tool_results_merge_with_results_first() -> None:
    calls = (ToolCall("t1", "a", {}), ToolCall("t2", "b", {}))
    messages = (
        ChatMessage("user", "go"),
        ChatMessage("assistant", "working", tool_calls=calls),
        ChatMessage("tool", "one", tool_call_id="t1"),
        ChatMessage("tool", "two", tool_call_id="t2", is_error=True),
        ChatMessage("user", "and then?"),
    )
    body = anthropic.build_body(request(messages=messages, tools=()), ToolNameMap(), vision=True)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][0] == {"type": "text", "text": "working"}
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "two", "is_error": True},
        {"type": "text", "text": "and then?"},
    ]


def test_anthropic_tool_choice_required_and_none() -> None:
    required = anthropic.build_body(request(tool_choice="required"), ToolNameMap(), vision=True)
    assert required["tool_choice"] == {"type": "any"}
    fresh = (ChatMessage("user", "hi"),)
    none = anthropic.build_body(
        request(messages=fresh, tool_choice="none"), ToolNameMap(), vision=True
    )
    assert "tools" not in none and "tool_choice" not in none
    # With tool history the API needs the definitions; "none" forbids calls instead.
    with_history = anthropic.build_body(request(tool_choice="none"), ToolNameMap(), vision=True)
    assert with_history["tool_choice"] == {"type": "none"} and with_history["tools"]


def test_anthropic_images_url_and_data() -> None:
    msg = ChatMessage(
        "user",
        "",
        images=(
            Image("https://x/a.png"),
            Image("data:image/jpeg;base64,QUJD"),
            Image("data:,hi", mime="image/gif"),
        ),
    )
    body = anthropic.build_body(request(messages=(msg,), tools=()), ToolNameMap(), vision=True)
    assert body["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "QUJD"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "aGk="}},
    ]
    text_only = anthropic.build_body(
        request(messages=(msg, ChatMessage("user", "x")), tools=()), ToolNameMap(), vision=False
    )
    assert text_only["messages"] == [{"role": "user", "content": [{"type": "text", "text": "x"}]}]


def test_anthropic_headers() -> None:
    assert anthropic.build_headers(Endpoint("anthropic", "u", api_key="k")) == {
        "anthropic-version": "2023-06-01",
        "x-api-key": "k",
    }


# ---------------------------------------------------------------------- Cohere
def test_cohere_body_maps_messages_tools_and_sampling() -> None:
    body = cohere.build_body(
        request(model="command-r", temperature=2, top_p=1.0, max_tokens=50, tool_choice="required"),
        ToolNameMap(),
        vision=True,
    )
    assert body["stream"] is True and body["temperature"] == 1.0 and body["p"] == 0.99
    assert body["max_tokens"] == 50 and body["tool_choice"] == "REQUIRED"
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "mcp_fs_read",
            "description": "Read a file",
            "parameters": dict(TOOL.parameters),
        },
    }
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Read a.txt"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "mcp_fs_read", "arguments": '{"path":"a.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "hello"},
    ]


def test_cohere_tool_plan_and_headers() -> None:
    msg = ChatMessage("assistant", "I will read it", tool_calls=(CALL,))
    body = cohere.build_body(
        request(messages=(msg,), tool_choice="none"), ToolNameMap(), vision=True
    )
    assert body["messages"][0]["tool_plan"] == "I will read it"
    assert body["tool_choice"] == "NONE"
    assert cohere.build_headers(Endpoint("cohere", "u", api_key="k")) == {
        "authorization": "Bearer k"
    }
