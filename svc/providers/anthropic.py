"""The Anthropic Messages API (``POST {base_url}/messages``).

Request building is pure (:func:`build_body`, :func:`build_headers`); the
response is parsed by :class:`~svc.providers.anthropic_stream.AnthropicStream`.
"""

from __future__ import annotations

import base64
import urllib.parse
from collections.abc import Iterable
from typing import Any

import httpx

from .anthropic_stream import AnthropicStream
from .endpoint import Endpoint, HttpProvider, join_url
from .tool_names import ToolNameMap
from .transport import RetryPolicy, stream_chat
from .types import ChatMessage, ChatRequest, Completion, Image, Sink

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096


def build_headers(endpoint: Endpoint) -> dict[str, str]:
    headers = {"anthropic-version": API_VERSION}
    if endpoint.api_key:
        headers["x-api-key"] = endpoint.api_key
    headers.update(endpoint.headers)
    return headers


def image_block(image: Image) -> dict[str, Any]:
    """An image content block: ``data:`` URLs inline as base64, anything else by URL."""
    if not image.url.startswith("data:"):
        return {"type": "image", "source": {"type": "url", "url": image.url}}
    header, _, payload = image.url[5:].partition(",")
    media_type, *params = header.split(";")
    if "base64" not in params:
        payload = base64.b64encode(urllib.parse.unquote_to_bytes(payload)).decode("ascii")
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type or image.mime, "data": payload},
    }


def _blocks(message: ChatMessage, names: ToolNameMap, *, vision: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if message.role == "tool" and message.tool_call_id:
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        if message.content:
            result["content"] = message.content
        if message.is_error:
            result["is_error"] = True
        return [result]
    if message.role == "tool":
        # A result with no call to answer cannot be a tool_result block.
        return [
            {"type": "text", "text": f"Tool `{message.name or 'tool'}` result:\n{message.content}"}
        ]
    # The API rejects empty text blocks.
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    if message.role == "user" and vision:
        blocks += [image_block(image) for image in message.images]
    if message.role == "assistant":
        blocks += [
            {
                "type": "tool_use",
                "id": call.id,
                "name": names.wire(call.name),
                "input": dict(call.arguments),
            }
            for call in message.tool_calls
        ]
    return blocks


def build_messages(
    messages: Iterable[ChatMessage], names: ToolNameMap, *, vision: bool
) -> tuple[str, list[dict[str, Any]]]:
    """``(system, messages)``: system messages joined; consecutive same-role turns merged.

    Tool results become ``tool_result`` blocks of a user turn, so a run of them
    (and any user text that follows) merges into one user message; within a
    user turn the API wants tool results before other content.
    """
    system: list[str] = []
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            if message.content:
                system.append(message.content)
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message, names, vision=vision)
        if not blocks:
            continue
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    for turn in wire:
        if turn["role"] == "user":
            turn["content"].sort(key=lambda block: block["type"] != "tool_result")  # stable
    return "\n\n".join(system), wire


def _uses_tools(wire_messages: list[dict[str, Any]]) -> bool:
    return any(
        block["type"] in ("tool_use", "tool_result")
        for m in wire_messages
        for block in m["content"]
    )


def build_body(request: ChatRequest, names: ToolNameMap, *, vision: bool) -> dict[str, Any]:
    """The JSON body of ``POST /messages`` (``names`` gets the request's tools)."""
    tools = [
        {
            "name": names.wire(tool.name),
            "description": tool.description,
            "input_schema": dict(tool.parameters),
        }
        for tool in request.tools
    ]
    system, messages = build_messages(request.messages, names, vision=vision)
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        "messages": messages,
        "stream": True,
    }
    if system:
        body["system"] = system
    if tools and request.tool_choice != "none":
        body["tools"] = tools
        body["tool_choice"] = {"type": "any" if request.tool_choice == "required" else "auto"}
    elif tools and _uses_tools(messages):
        # The API rejects tool_use/tool_result history without tool definitions,
        # so "none" keeps the tools and forbids calling them.
        body["tools"] = tools
        body["tool_choice"] = {"type": "none"}
    if request.temperature is not None:
        body["temperature"] = min(max(request.temperature, 0.0), 1.0)
    elif request.top_p is not None:
        # Recent models reject temperature and top_p together; temperature wins.
        body["top_p"] = request.top_p
    return body


class AnthropicProvider(HttpProvider):
    """A provider speaking the Anthropic Messages API."""

    def __init__(
        self, endpoint: Endpoint, http: httpx.AsyncClient, *, retry: RetryPolicy | None = None
    ) -> None:
        super().__init__(endpoint, http, retry=retry)
        self.url = join_url(endpoint.base_url, "messages", endpoint.params)
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
            new_stream=lambda: AnthropicStream(self.id, names, model=request.model),
            sink=sink,
            retry=self.retry,
            secret=self.endpoint.api_key,
        )
