"""Cohere v2 chat (``POST {base_url}/chat``).

Request building is pure (:func:`build_body`, :func:`build_headers`); the
response is parsed by :class:`~svc.providers.cohere_stream.CohereStream`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpx

from .cohere_stream import CohereStream
from .endpoint import Endpoint, HttpProvider, join_url
from .tool_calls import arguments_json
from .tool_names import ToolNameMap
from .transport import RetryPolicy, stream_chat
from .types import ChatMessage, ChatRequest, Completion, Sink

# Documented bounds of Cohere's nucleus sampling parameter ``p``.
MIN_P, MAX_P = 0.01, 0.99


def build_headers(endpoint: Endpoint) -> dict[str, str]:
    headers = {"authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    headers.update(endpoint.headers)
    return headers


def build_messages(
    messages: Iterable[ChatMessage], names: ToolNameMap, *, vision: bool
) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "user" and message.images and vision:
            parts: list[dict[str, Any]] = []
            if message.content:
                parts.append({"type": "text", "text": message.content})
            parts += [
                {"type": "image_url", "image_url": {"url": image.url}} for image in message.images
            ]
            wire.append({"role": "user", "content": parts})
        elif message.role == "assistant" and message.tool_calls:
            entry: dict[str, Any] = {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": names.wire(call.name),
                            "arguments": arguments_json(call.arguments),
                        },
                    }
                    for call in message.tool_calls
                ],
            }
            # In a tool-calling turn Cohere calls the model's words its tool plan.
            if message.content:
                entry["tool_plan"] = message.content
            wire.append(entry)
        elif message.role == "tool":
            content = f"ERROR: {message.content}" if message.is_error else message.content
            if message.tool_call_id:
                wire.append(
                    {"role": "tool", "tool_call_id": message.tool_call_id, "content": content}
                )
            else:
                wire.append(
                    {
                        "role": "user",
                        "content": f"Tool `{message.name or 'tool'}` result:\n{content}",
                    }
                )
        else:
            wire.append({"role": message.role, "content": message.content})
    return wire


def build_body(request: ChatRequest, names: ToolNameMap, *, vision: bool) -> dict[str, Any]:
    """The JSON body of ``POST /chat`` (``names`` gets the request's tools)."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": names.wire(tool.name),
                "description": tool.description,
                "parameters": dict(tool.parameters),
            },
        }
        for tool in request.tools
    ]
    messages = build_messages(request.messages, names, vision=vision)
    body: dict[str, Any] = {"model": request.model, "messages": messages, "stream": True}
    if tools and request.tool_choice != "none":
        body["tools"] = tools
        if request.tool_choice == "required":
            body["tool_choice"] = "REQUIRED"
    elif tools and any(m.get("tool_calls") or m["role"] == "tool" for m in messages):
        # Tool history needs its tool definitions; "none" keeps them but forbids calls.
        body["tools"] = tools
        body["tool_choice"] = "NONE"
    if request.temperature is not None:
        body["temperature"] = min(max(request.temperature, 0.0), 1.0)
    if request.top_p is not None:
        body["p"] = min(max(request.top_p, MIN_P), MAX_P)
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    return body


class CohereProvider(HttpProvider):
    """A provider speaking Cohere's v2 chat API."""

    def __init__(
        self, endpoint: Endpoint, http: httpx.AsyncClient, *, retry: RetryPolicy | None = None
    ) -> None:
        super().__init__(endpoint, http, retry=retry)
        self.url = join_url(endpoint.base_url, "chat", endpoint.params)
        self.headers = build_headers(endpoint)

    async def chat(self, request: ChatRequest, sink: Sink | None = None) -> Completion:
        names = ToolNameMap(tool.name for tool in request.tools)
        body = build_body(request, names, vision=self.supports_vision)
        return await stream_chat(
            self.http,
            provider=self.id,
            url=self.url,
            headers=self.headers,
            body=body,
            new_stream=lambda: CohereStream(self.id, names, model=request.model),
            sink=sink,
            retry=self.retry,
            secret=self.endpoint.api_key,
        )
