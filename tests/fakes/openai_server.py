"""A fake OpenAI-compatible server (``POST .../chat/completions``, ``GET /v1/models``).

    async with open_fake_openai() as server:
        server.enqueue(Turn.reply("Hi!"))
        provider = OpenAICompatProvider(Endpoint("openai", server.url, api_key="sk-test"), http)
        completion = await provider.chat(request)
        assert server.requests[0].body["stream"] is True

``server.url`` ends in ``/v1``. Any path ending in ``/chat/completions`` is
served (so Azure-style deployment prefixes work). Streaming follows the real
service: a role chunk, content chunks, tool-call fragments (id and name first,
then the arguments in pieces), a finish chunk, a usage-only chunk when
``stream_options.include_usage`` is set, then ``[DONE]``. ``stream: false``
gets one ``chat.completion`` object.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from ._asgi import FakeServer, RecordedRequest, Send, StreamWriter, send_json, serve_fake, sse
from .turns import (
    FakeToolCall,
    FakeUsage,
    HttpError,
    Turn,
    argument_pieces,
    resolve_usage,
    wire_tool_name,
)

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_api_key",
    403: "permission_denied",
    404: "not_found",
    429: "rate_limit_exceeded",
}


def _usage(usage: FakeUsage) -> dict[str, int]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


class FakeOpenAI(FakeServer):
    prefix = "/v1"

    def __init__(self, *, models: tuple[str, ...] = ("fake-model",)) -> None:
        super().__init__()
        self.models = list(models)
        self._ids = itertools.count(1)

    async def handle(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        if request.method == "GET" and request.path.endswith("/models"):
            await send_json(
                send,
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": model, "object": "model", "owned_by": "fake"}
                        for model in self.models
                    ],
                },
            )
        elif request.method == "POST" and request.path.endswith("/chat/completions"):
            await self._chat(request, send, stop)
        else:
            await send_json(
                send,
                404,
                {"error": {"message": f"no route {request.path}", "type": "invalid_request_error"}},
            )

    async def _chat(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        turn = self.next_turn(request)
        if turn.error is not None:
            await _send_error(send, turn.error)
            return
        body: dict[str, Any] = request.body if isinstance(request.body, dict) else {}
        model = turn.model or body.get("model") or "fake-model"
        offered = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
        calls = [
            (call, wire_tool_name(call.name, offered), call.id or f"call_{next(self._ids)}")
            for call in turn.tool_calls
        ]
        usage = resolve_usage(turn, body.get("messages"))
        finish = turn.finish_reason or ("tool_calls" if calls else "stop")
        if not body.get("stream"):
            await send_json(send, 200, _completion(turn, model, calls, usage, finish))
            return

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
            return sse(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
                }
            )

        writer = StreamWriter(send, turn, stop)
        await writer.start()
        await writer.preamble(chunk({"role": "assistant", "content": ""}))
        for text in turn.chunks:
            await writer.content(chunk({"content": text}))
        for index, (call, name, call_id) in enumerate(calls):
            await writer.content(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for piece in argument_pieces(call.arguments_text(), turn.argument_chunk):
                await writer.content(
                    chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                )
        if turn.stream_error is not None:
            await writer.frame(
                sse(
                    {
                        "error": {
                            "type": turn.stream_error.type,
                            "message": turn.stream_error.message,
                        }
                    }
                )
            )
            await writer.finish()
            return
        if turn.omit_terminator:
            await writer.finish()
            return
        await writer.frame(chunk({}, finish))
        if usage is not None and (body.get("stream_options") or {}).get("include_usage"):
            await writer.frame(
                sse(
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": model,
                        "choices": [],
                        "usage": _usage(usage),
                    }
                )
            )
        await writer.frame(sse("[DONE]"))
        await writer.finish()


def _completion(
    turn: Turn,
    model: str,
    calls: list[tuple[FakeToolCall, str, str]],
    usage: FakeUsage | None,
    finish: str,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": call.arguments_text()},
            }
            for call, name, call_id in calls
        ]
    result: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if usage is not None:
        result["usage"] = _usage(usage)
    return result


async def _send_error(send: Send, error: HttpError) -> None:
    body = (
        error.body
        if error.body is not None
        else {
            "error": {
                "message": error.message,
                "type": ERROR_TYPES.get(error.status, "server_error"),
                "code": None,
            }
        }
    )
    headers = [("retry-after", f"{error.retry_after:g}")] if error.retry_after is not None else []
    await send_json(send, error.status, body, headers)


@asynccontextmanager
async def open_fake_openai(
    *, models: tuple[str, ...] = ("fake-model",)
) -> AsyncIterator[FakeOpenAI]:
    """A running :class:`FakeOpenAI` (see the module docstring)."""
    async with serve_fake(FakeOpenAI(models=models)) as server:
        yield server
