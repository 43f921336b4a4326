"""The offline local echo provider."""

from __future__ import annotations

import trio

from svc.providers import LocalEchoProvider
from svc.providers.local import echo_reply
from svc.providers.types import ChatMessage, ChatRequest, StreamEvent, TextDelta, ToolSpec, Usage


async def test_echoes_the_last_user_message_word_by_word() -> None:
    provider = LocalEchoProvider()
    assert (provider.id, provider.default_model, provider.supports_vision) == (
        "local",
        "echo-1",
        False,
    )
    events: list[StreamEvent] = []
    request = ChatRequest(
        model="echo-1",
        tools=(ToolSpec("t", "", {}),),
        messages=(
            ChatMessage("system", "ignored"),
            ChatMessage("user", "first"),
            ChatMessage("assistant", "x"),
            ChatMessage("user", "hello  wide world"),
        ),
    )
    completion = await provider.chat(request, events.append)
    assert completion.text == "hello  wide world" and completion.tool_calls == ()
    assert events[:-1] == [TextDelta("hello  "), TextDelta("wide "), TextDelta("world")]
    usage = events[-1]
    assert isinstance(usage, Usage) and usage.source == "estimated" and usage == completion.usage
    assert usage.completion_tokens == 4 and usage.total_tokens == usage.prompt_tokens + 4
    assert completion.finish_reason == "stop" and completion.model == "echo-1"


async def test_tool_result_gets_a_summary_line() -> None:
    messages = (
        ChatMessage("user", "read it"),
        ChatMessage("tool", "line one\nline two " + "x" * 300, tool_call_id="c", name="fs.read"),
    )
    reply = echo_reply(messages)
    assert reply.startswith("Tool `fs.read` returned: line one line two x")
    assert len(reply) < 240 and reply.endswith("…")
    assert (
        echo_reply((ChatMessage("tool", "nope", name="bash", is_error=True),))
        == "Tool `bash` failed: nope"
    )


async def test_empty_transcript_and_minimum_usage() -> None:
    completion = await LocalEchoProvider().chat(ChatRequest(model="echo-1", messages=()))
    assert completion.text == "" and completion.usage is not None
    assert completion.usage.prompt_tokens == 1 and completion.usage.completion_tokens == 1


async def test_is_cancellable() -> None:
    provider = LocalEchoProvider()
    request = ChatRequest(model="echo-1", messages=(ChatMessage("user", "word " * 1000),))
    seen: list[StreamEvent] = []
    with trio.CancelScope() as scope:

        def sink(event: StreamEvent) -> None:
            seen.append(event)
            if len(seen) == 3:
                scope.cancel()

        await provider.chat(request, sink)
    assert scope.cancelled_caught and len(seen) == 3
