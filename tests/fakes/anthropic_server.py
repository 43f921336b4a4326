"""A fake Anthropic Messages API server (``POST /v1/messages``).

    async with open_fake_anthropic() as server:
        server.enqueue(Turn.calls(FakeToolCall("search", {"q": "trio"}), text="Searching"))
        provider = AnthropicProvider(Endpoint("anthropic", server.url, api_key="sk-ant-test"), http)

``server.url`` ends in ``/v1``. Streaming follows the real event sequence:
``message_start``, a text block (``content_block_start``, ``ping``,
``text_delta``s, ``content_block_stop``), one ``tool_use`` block per call
(``input_json_delta`` pieces), ``message_delta`` (stop reason, output tokens),
``message_stop``. A turn's ``stream_error`` becomes an ``error`` event after
the content. ``stream: false`` gets one ``message`` object.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from ._asgi import FakeServer, RecordedRequest, Send, StreamWriter, send_json, serve_fake, sse
from .turns import HttpError, argument_pieces, resolve_usage, wire_tool_name

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _event(payload: dict[str, Any]) -> bytes:
    return sse(payload, event=payload["type"])


class FakeAnthropic(FakeServer):
    prefix = "/v1"

    def __init__(self) -> None:
        super().__init__()
        self._ids = itertools.count(1)

    async def handle(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        if request.method == "POST" and request.path.endswith("/messages"):
            await self._messages(request, send, stop)
        else:
            await send_json(
                send,
                404,
                {
                    "type": "error",
                    "error": {"type": "not_found_error", "message": f"no route {request.path}"},
                },
            )

    async def _messages(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        turn = self.next_turn(request)
        if turn.error is not None:
            await _send_error(send, turn.error)
            return
        body: dict[str, Any] = request.body if isinstance(request.body, dict) else {}
        model = turn.model or body.get("model") or "claude-fake"
        offered = [t.get("name", "") for t in body.get("tools") or []]
        calls = [
            (call, wire_tool_name(call.name, offered), call.id or f"toolu_{next(self._ids):04d}")
            for call in turn.tool_calls
        ]
        usage = resolve_usage(turn, [body.get("system"), body.get("messages")])
        stop = turn.finish_reason or ("tool_use" if calls else "end_turn")
        if not body.get("stream"):
            content: list[dict[str, Any]] = (
                [{"type": "text", "text": turn.text}] if turn.chunks else []
            )
            content += [
                {"type": "tool_use", "id": call_id, "name": name, "input": dict(call.arguments)}
                for call, name, call_id in calls
            ]
            message: dict[str, Any] = {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
            }
            if usage is not None:
                message["usage"] = {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                }
            await send_json(send, 200, message)
            return

        writer = StreamWriter(send, turn, stop)
        await writer.start()
        start: dict[str, Any] = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
        }
        if usage is not None:
            start["usage"] = {"input_tokens": usage.input_tokens, "output_tokens": 1}
        await writer.preamble(_event({"type": "message_start", "message": start}))
        index = 0
        if turn.chunks:
            await writer.preamble(
                _event(
                    {
                        "type": "content_block_start",
                        "index": 0,
                        "content_block": {"type": "text", "text": ""},
                    }
                )
            )
            await writer.preamble(_event({"type": "ping"}))
            for text in turn.chunks:
                await writer.content(
                    _event(
                        {
                            "type": "content_block_delta",
                            "index": 0,
                            "delta": {"type": "text_delta", "text": text},
                        }
                    )
                )
            await writer.frame(_event({"type": "content_block_stop", "index": 0}))
            index = 1
        for call, name, call_id in calls:
            await writer.content(
                _event(
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {
                            "type": "tool_use",
                            "id": call_id,
                            "name": name,
                            "input": {},
                        },
                    }
                )
            )
            for piece in argument_pieces(call.arguments_text(), turn.argument_chunk):
                await writer.content(
                    _event(
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece},
                        }
                    )
                )
            await writer.frame(_event({"type": "content_block_stop", "index": index}))
            index += 1
        if turn.stream_error is not None:
            await writer.frame(
                _event(
                    {
                        "type": "error",
                        "error": {
                            "type": turn.stream_error.type,
                            "message": turn.stream_error.message,
                        },
                    }
                )
            )
            await writer.finish()
            return
        if turn.omit_terminator:
            await writer.finish()
            return
        delta: dict[str, Any] = {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
        }
        if usage is not None:
            delta["usage"] = {"output_tokens": usage.output_tokens}
        await writer.frame(_event(delta))
        await writer.frame(_event({"type": "message_stop"}))
        await writer.finish()


async def _send_error(send: Send, error: HttpError) -> None:
    body = (
        error.body
        if error.body is not None
        else {
            "type": "error",
            "error": {"type": ERROR_TYPES.get(error.status, "api_error"), "message": error.message},
        }
    )
    headers = [("retry-after", f"{error.retry_after:g}")] if error.retry_after is not None else []
    await send_json(send, error.status, body, headers)


@asynccontextmanager
async def open_fake_anthropic() -> AsyncIterator[FakeAnthropic]:
    """A running :class:`FakeAnthropic` (see the module docstring)."""
    async with serve_fake(FakeAnthropic()) as server:
        yield server
