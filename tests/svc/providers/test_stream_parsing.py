"""Each wire's response parser, fed lines directly (pure, no sockets)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from svc.providers.anthropic_stream import AnthropicStream
from svc.providers.cohere_stream import CohereStream
from svc.providers.openai_stream import OpenAIStream
from svc.providers.tool_calls import parse_arguments
from svc.providers.tool_names import ToolNameMap
from svc.providers.types import (
    CONTEXT_LENGTH_EXCEEDED,
    PROVIDER_SERVER_ERROR,
    RATE_LIMIT_EXCEEDED,
    ProviderError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)


def lines(*payloads: Any) -> list[str]:
    """``data:`` lines, each followed by the blank line that ends an event."""
    out: list[str] = []
    for payload in payloads:
        out += ["data: " + (payload if isinstance(payload, str) else json.dumps(payload)), ""]
    return out


def run(parser: Any, raw: list[str]) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    for line in raw:
        events += parser.feed(line)
    return events + list(parser.close())


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


# ---------------------------------------------------------------------- tool arguments
@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ('{"a": 1}', {"a": 1}),
        ("", {}),
        ("  ", {}),
        ("{not json", {}),
        ("[1, 2]", {}),
        ('"{\\"a\\": 2}"', {"a": 2}),
    ],
)
def test_parse_arguments(raw: str, parsed: dict[str, Any]) -> None:
    assert parse_arguments(raw) == parsed


# ---------------------------------------------------------------------- OpenAI
def test_openai_text_tool_calls_and_trailing_usage() -> None:
    names = ToolNameMap(["mcp.fs.read"])
    parser = OpenAIStream("openai", names, model="gpt-4o")
    events = run(
        parser,
        lines(
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hel"}),
            chunk({"content": "lo"}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "mcp_fs_read", "arguments": ""},
                        }
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"pa'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'th": "x"}'}}]}),
            chunk({}, "tool_calls"),
            {
                "choices": [],
                "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
            },
            "[DONE]",
        ),
    )
    assert events == [
        TextDelta("Hel"),
        TextDelta("lo"),
        ToolCallDelta(0, "c1", "mcp.fs.read", ""),
        ToolCallDelta(0, None, None, '{"pa'),
        ToolCallDelta(0, None, None, 'th": "x"}'),
        Usage(5, 7, 12),
    ]
    completion = parser.completion()
    assert (
        parser.finished and completion.text == "Hello" and completion.finish_reason == "tool_calls"
    )
    assert completion.tool_calls[0].name == "mcp.fs.read"
    assert completion.tool_calls[0].arguments == {"path": "x"}


def test_openai_invalid_arguments_keep_raw_text() -> None:
    parser = OpenAIStream("openai", ToolNameMap())
    run(
        parser,
        lines(
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{oops"}}
                    ]
                }
            ),
            "[DONE]",
        ),
    )
    (call,) = parser.completion().tool_calls
    assert call.arguments == {} and call.raw_arguments == "{oops"


def test_openai_parallel_calls_by_index_and_missing_ids_are_generated() -> None:
    parser = OpenAIStream("openai", ToolNameMap())
    run(
        parser,
        lines(
            chunk({"tool_calls": [{"index": 1, "function": {"name": "b", "arguments": "{}"}}]}),
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "first", "function": {"name": "a", "arguments": "{}"}}
                    ]
                }
            ),
            "[DONE]",
        ),
    )
    calls = parser.completion().tool_calls
    assert [c.name for c in calls] == ["b", "a"]  # arrival order
    assert calls[0].id.startswith("call_") and calls[1].id == "first"
    assert parser.completion().tool_calls[0].id == calls[0].id  # stable


def test_openai_without_done_is_finished_only_by_a_finish_reason() -> None:
    parser = OpenAIStream("openai", ToolNameMap())
    run(parser, lines(chunk({"content": "x"})))
    assert not parser.finished
    parser = OpenAIStream("openai", ToolNameMap())
    run(parser, lines(chunk({"content": "x"}, "stop")))
    assert parser.finished


def test_openai_error_chunk_raises_mapped_error() -> None:
    parser = OpenAIStream("openrouter", ToolNameMap())
    with pytest.raises(ProviderError) as info:
        run(parser, lines({"error": {"code": 429, "message": "slow down"}}))
    assert info.value.code == RATE_LIMIT_EXCEEDED


def test_openai_non_streaming_body() -> None:
    parser = OpenAIStream("openai", ToolNameMap())
    events = list(
        parser.feed_body(
            {
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {
                            "role": "assistant",
                            "content": "hi",
                            "tool_calls": [
                                {
                                    "id": "c",
                                    "type": "function",
                                    "function": {"name": "f", "arguments": '{"a":1}'},
                                }
                            ],
                        },
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 2},
            }
        )
    )
    assert events[0] == TextDelta("hi") and events[-1] == Usage(1, 2, 3)
    assert parser.finished and parser.completion().tool_calls[0].arguments == {"a": 1}


# ---------------------------------------------------------------------- Anthropic
def anthropic_lines(*payloads: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for payload in payloads:
        out += [f"event: {payload['type']}", "data: " + json.dumps(payload), ""]
    return out


def test_anthropic_text_and_tool_use() -> None:
    parser = AnthropicStream("anthropic", ToolNameMap(["web.search"]))
    events = run(
        parser,
        anthropic_lines(
            {
                "type": "message_start",
                "message": {
                    "model": "claude-x",
                    "usage": {"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 1},
                },
            },
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {"type": "ping"},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Let me"},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "web_search",
                    "input": {},
                },
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"q":'},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '"trio"}'},
            },
            {"type": "content_block_stop", "index": 1},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 20},
            },
            {"type": "message_stop"},
        ),
    )
    assert events == [
        TextDelta("Let me"),
        ToolCallDelta(0, "toolu_1", "web.search", ""),
        ToolCallDelta(0, None, None, '{"q":'),
        ToolCallDelta(0, None, None, '"trio"}'),
        Usage(15, 20, 35),
    ]
    completion = parser.completion()
    assert (
        parser.finished
        and completion.model == "claude-x"
        and completion.finish_reason == "tool_calls"
    )
    assert (
        completion.tool_calls[0].arguments == {"q": "trio"}
        and completion.tool_calls[0].id == "toolu_1"
    )


@pytest.mark.parametrize(
    ("error_type", "message", "code"),
    [
        ("overloaded_error", "Overloaded", PROVIDER_SERVER_ERROR),
        ("api_error", "boom", PROVIDER_SERVER_ERROR),
        ("rate_limit_error", "slow", RATE_LIMIT_EXCEEDED),
        ("authentication_error", "bad key", "AUTHENTICATION_ERROR"),
        (
            "invalid_request_error",
            "prompt is too long: 300000 tokens > 200000 maximum",
            CONTEXT_LENGTH_EXCEEDED,
        ),
        ("invalid_request_error", "bad field", "PROVIDER_REQUEST_INVALID"),
    ],
)
def test_anthropic_error_events(error_type: str, message: str, code: str) -> None:
    parser = AnthropicStream("anthropic", ToolNameMap())
    with pytest.raises(ProviderError) as info:
        run(
            parser,
            anthropic_lines({"type": "error", "error": {"type": error_type, "message": message}}),
        )
    assert info.value.code == code and message[:20] in info.value.message


def test_anthropic_ignores_thinking_blocks_and_is_unfinished_without_message_stop() -> None:
    parser = AnthropicStream("anthropic", ToolNameMap())
    events = run(
        parser,
        anthropic_lines(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "hmm"},
            },
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "text_delta", "text": "A"},
            },
        ),
    )
    assert events == [TextDelta("A")] and not parser.finished


# ---------------------------------------------------------------------- Cohere
def test_cohere_text_stream_and_usage() -> None:
    parser = CohereStream("cohere", ToolNameMap())
    events = run(
        parser,
        lines(
            {"type": "message-start", "id": "x", "delta": {"message": {"role": "assistant"}}},
            {
                "type": "content-start",
                "index": 0,
                "delta": {"message": {"content": {"type": "text", "text": ""}}},
            },
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"text": "Bon"}}},
            },
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"text": "jour"}}},
            },
            {"type": "content-end", "index": 0},
            {
                "type": "message-end",
                "delta": {
                    "finish_reason": "COMPLETE",
                    "usage": {
                        "billed_units": {"input_tokens": 3, "output_tokens": 2},
                        "tokens": {"input_tokens": 9, "output_tokens": 2},
                    },
                },
            },
        ),
    )
    assert events == [TextDelta("Bon"), TextDelta("jour"), Usage(9, 2, 11)]
    assert parser.finished and parser.completion().finish_reason == "stop"


def test_cohere_tool_plan_and_calls_with_billed_units_fallback() -> None:
    parser = CohereStream("cohere", ToolNameMap(["db.query"]))
    events = run(
        parser,
        lines(
            {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will query"}}},
            {
                "type": "tool-call-start",
                "index": 0,
                "delta": {
                    "message": {
                        "tool_calls": {
                            "id": "q1",
                            "type": "function",
                            "function": {"name": "db_query", "arguments": ""},
                        }
                    }
                },
            },
            {
                "type": "tool-call-delta",
                "index": 0,
                "delta": {"message": {"tool_calls": {"function": {"arguments": '{"sql":'}}}},
            },
            {
                "type": "tool-call-delta",
                "index": 0,
                "delta": {"message": {"tool_calls": {"function": {"arguments": '"x"}'}}}},
            },
            {"type": "tool-call-end", "index": 0},
            {
                "type": "message-end",
                "delta": {
                    "finish_reason": "TOOL_CALL",
                    "usage": {"billed_units": {"input_tokens": 4, "output_tokens": 6}},
                },
            },
        ),
    )
    assert events[0] == TextDelta("I will query")
    assert events[1] == ToolCallDelta(0, "q1", "db.query", "")
    assert events[-1] == Usage(4, 6, 10)
    (call,) = parser.completion().tool_calls
    assert call.name == "db.query" and call.arguments == {"sql": "x"}
    assert parser.completion().finish_reason == "tool_calls"


def test_cohere_error_finish_raises() -> None:
    parser = CohereStream("cohere", ToolNameMap())
    with pytest.raises(ProviderError) as info:
        run(
            parser,
            lines(
                {"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "internal"}}
            ),
        )
    assert info.value.code == PROVIDER_SERVER_ERROR
