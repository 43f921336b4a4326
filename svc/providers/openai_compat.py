"""The OpenAI chat-completions wire, spoken by most providers.

Used for openai, openrouter, ollama, groq, mistral, together, azure, bedrock,
vertex, copilot and every custom provider id with a ``url``. Request building
is pure (:func:`build_body`, :func:`build_headers`); the response is parsed by
:class:`~svc.providers.openai_stream.OpenAIStream`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import httpx

from .catalog import DEFAULT_TITLE
from .endpoint import Endpoint, HttpProvider, join_url
from .openai_stream import OpenAIStream
from .tool_calls import arguments_json
from .tool_names import ToolNameMap
from .transport import RetryPolicy, stream_chat
from .types import ChatMessage, ChatRequest, Completion, Sink

OPENROUTER_REFERER = "https://svc.local"

# Reasoning models reject sampling parameters (temperature, top_p) and the
# legacy max_tokens field (they take max_completion_tokens).
_REASONING_MODEL = re.compile(r"^(?:o1|o3)(?:-.*)?$|^o4-.*$|^gpt-5.*$", re.IGNORECASE)


def is_reasoning_model(model: str) -> bool:
    """``o1``, ``o3``, ``o1-*``, ``o3-*``, ``o4-*``, ``gpt-5*``.

    Also behind a ``vendor/`` prefix.
    """
    return bool(_REASONING_MODEL.match(model.rsplit("/", 1)[-1]))


def build_headers(endpoint: Endpoint, *, title: str = DEFAULT_TITLE) -> dict[str, str]:
    headers: dict[str, str] = {}
    # Ollama never gets a key: it has no auth and may sit behind a proxy that rejects one.
    if endpoint.api_key and endpoint.id != "ollama":
        headers["authorization"] = f"Bearer {endpoint.api_key}"
        if endpoint.id == "azure":
            headers["api-key"] = endpoint.api_key
    if endpoint.id == "openrouter":
        headers["http-referer"] = OPENROUTER_REFERER
        headers["x-title"] = title
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
            wire.append(
                {
                    "role": "assistant",
                    # OpenAI wants null, not "", when the turn was only tool calls.
                    "content": message.content or None,
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
            )
        elif message.role == "tool":
            content = f"ERROR: {message.content}" if message.is_error else message.content
            if message.tool_call_id:
                wire.append(
                    {"role": "tool", "tool_call_id": message.tool_call_id, "content": content}
                )
            else:
                # A result with no call to answer is not valid as a tool message.
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
    """The JSON body of ``POST /chat/completions`` (``names`` gets the request's tools)."""
    reasoning = is_reasoning_model(request.model)
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
    body: dict[str, Any] = {
        "model": request.model,
        "messages": build_messages(request.messages, names, vision=vision),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if tools:
        body["tools"] = tools
        body["tool_choice"] = request.tool_choice
    if request.max_tokens is not None:
        body["max_completion_tokens" if reasoning else "max_tokens"] = request.max_tokens
    if request.temperature is not None and not reasoning:
        body["temperature"] = min(max(request.temperature, 0.0), 2.0)
    if request.top_p is not None and not reasoning:
        body["top_p"] = request.top_p
    return body


class OpenAICompatProvider(HttpProvider):
    """A provider speaking ``POST {base_url}/chat/completions``."""

    def __init__(
        self,
        endpoint: Endpoint,
        http: httpx.AsyncClient,
        *,
        retry: RetryPolicy | None = None,
        title: str = DEFAULT_TITLE,
    ) -> None:
        super().__init__(endpoint, http, retry=retry)
        self.url = join_url(endpoint.base_url, "chat/completions", endpoint.params)
        self.headers = build_headers(endpoint, title=title)

    async def chat(self, request: ChatRequest, sink: Sink | None = None) -> Completion:
        names = ToolNameMap(tool.name for tool in request.tools)
        body = build_body(request, names, vision=self.supports_vision)
        return await stream_chat(
            self.http,
            provider=self.id,
            url=self.url,
            headers=self.headers,
            body=body,
            new_stream=lambda: OpenAIStream(self.id, names, model=request.model),
            sink=sink,
            retry=self.retry,
            secret=self.endpoint.api_key,
        )
