"""A fake Cohere v2 chat server (``POST /v2/chat``).

    async with open_fake_cohere() as server:
        server.enqueue(Turn.reply("Bonjour"))
        provider = CohereProvider(Endpoint("cohere", server.url, api_key="co-test"), http)

``server.url`` ends in ``/v2``. Streaming follows the v2 event sequence
(``event:`` and ``data:`` lines, the data a JSON object with ``type``):
``message-start``; for a text answer ``content-start``, ``content-delta``s,
``content-end``; for a tool-calling turn the text is sent as
``tool-plan-delta``s, then per call ``tool-call-start`` (id, name),
``tool-call-delta`` argument pieces, ``tool-call-end``; finally
``message-end`` with ``finish_reason`` and ``usage`` (``tokens`` and
``billed_units``). ``stream: false`` gets one response object. (A turn's
``stream_error`` is not rendered: Cohere reports failures as HTTP errors.)
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from ._asgi import FakeServer, RecordedRequest, Send, StreamWriter, send_json, serve_fake, sse
from .turns import (
    FakeUsage,
    HttpError,
    argument_pieces,
    resolve_usage,
    wire_tool_name,
)


def _event(payload: dict[str, Any]) -> bytes:
    return sse(payload, event=payload["type"])


def _usage(usage: FakeUsage) -> dict[str, Any]:
    counts = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    return {"billed_units": dict(counts), "tokens": dict(counts)}


class FakeCohere(FakeServer):
    prefix = "/v2"

    def __init__(self) -> None:
        super().__init__()
        self._ids = itertools.count(1)

    async def handle(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        if request.method == "POST" and request.path.endswith("/chat"):
            await self._chat(request, send, stop)
        else:
            await send_json(send, 404, {"message": f"no route {request.path}"})

    async def _chat(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        turn = self.next_turn(request)
        if turn.error is not None:
            await _send_error(send, turn.error)
            return
        body: dict[str, Any] = request.body if isinstance(request.body, dict) else {}
        offered = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
        calls = [
            (call, wire_tool_name(call.name, offered), call.id or f"fake_call_{next(self._ids)}")
            for call in turn.tool_calls
        ]
        usage = resolve_usage(turn, body.get("messages"))
        finish = turn.finish_reason or ("TOOL_CALL" if calls else "COMPLETE")
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant"}
            if calls:
                message["tool_plan"] = turn.text
                message["tool_calls"] = [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": call.arguments_text()},
                    }
                    for call, name, call_id in calls
                ]
            else:
                message["content"] = [{"type": "text", "text": turn.text}]
            response: dict[str, Any] = {"id": "fake", "finish_reason": finish, "message": message}
            if usage is not None:
                response["usage"] = _usage(usage)
            await send_json(send, 200, response)
            return

        writer = StreamWriter(send, turn, stop)
        await writer.start()
        await writer.preamble(
            _event(
                {
                    "type": "message-start",
                    "id": "fake",
                    "delta": {
                        "message": {
                            "role": "assistant",
                            "content": [],
                            "tool_plan": "",
                            "tool_calls": [],
                            "citations": [],
                        }
                    },
                }
            )
        )
        if calls:
            for text in turn.chunks:
                await writer.content(
                    _event({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": text}}})
                )
        elif turn.chunks:
            await writer.preamble(
                _event(
                    {
                        "type": "content-start",
                        "index": 0,
                        "delta": {"message": {"content": {"type": "text", "text": ""}}},
                    }
                )
            )
            for text in turn.chunks:
                await writer.content(
                    _event(
                        {
                            "type": "content-delta",
                            "index": 0,
                            "delta": {"message": {"content": {"text": text}}},
                        }
                    )
                )
            await writer.frame(_event({"type": "content-end", "index": 0}))
        for index, (call, name, call_id) in enumerate(calls):
            await writer.content(
                _event(
                    {
                        "type": "tool-call-start",
                        "index": index,
                        "delta": {
                            "message": {
                                "tool_calls": {
                                    "id": call_id,
                                    "type": "function",
                                    "function": {"name": name, "arguments": ""},
                                }
                            }
                        },
                    }
                )
            )
            for piece in argument_pieces(call.arguments_text(), turn.argument_chunk):
                await writer.content(
                    _event(
                        {
                            "type": "tool-call-delta",
                            "index": index,
                            "delta": {
                                "message": {"tool_calls": {"function": {"arguments": piece}}}
                            },
                        }
                    )
                )
            await writer.frame(_event({"type": "tool-call-end", "index": index}))
        if turn.omit_terminator:
            await writer.finish()
            return
        end: dict[str, Any] = {"finish_reason": finish}
        if usage is not None:
            end["usage"] = _usage(usage)
        await writer.frame(_event({"type": "message-end", "delta": end}))
        await writer.finish()


async def _send_error(send: Send, error: HttpError) -> None:
    body = error.body if error.body is not None else {"message": error.message}
    headers = [("retry-after", f"{error.retry_after:g}")] if error.retry_after is not None else []
    await send_json(send, error.status, body, headers)


@asynccontextmanager
async def open_fake_cohere() -> AsyncIterator[FakeCohere]:
    """A running :class:`FakeCohere` (see the module docstring)."""
    async with serve_fake(FakeCohere()) as server:
        yield server
