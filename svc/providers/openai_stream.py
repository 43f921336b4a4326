"""Parsing an OpenAI chat-completions response into stream events (no I/O).

Streaming: SSE events whose data is a ``chat.completion.chunk`` or ``[DONE]``.
Text comes from ``choices[0].delta.content``; tool calls from
``choices[0].delta.tool_calls[]`` fragments keyed by ``index``; ``usage`` may
appear in any chunk (with ``stream_options.include_usage`` a trailing chunk with
empty ``choices``). Servers that ignore ``stream`` send one ``chat.completion``
object, handled by :meth:`OpenAIStream.feed_body`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .failures import error_for_event
from .sse import SSEDecoder, SSEEvent, json_payloads
from .tool_calls import ToolCallAssembler
from .tool_names import ToolNameMap
from .types import Completion, StreamEvent, TextDelta, Usage

_FINISH = {
    "function_call": "tool_calls",
    "eos": "stop",
    "end_turn": "stop",
    "tool_use": "tool_calls",
}


def usage_from(data: Mapping[str, Any]) -> Usage:
    prompt = int(data.get("prompt_tokens") or 0)
    completion = int(data.get("completion_tokens") or 0)
    total = int(data.get("total_tokens") or 0) or prompt + completion
    return Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)


class OpenAIStream:
    """One response's parser state (see :class:`~svc.providers.transport.WireStream`)."""

    def __init__(self, provider: str, names: ToolNameMap, *, model: str | None = None) -> None:
        self._provider = provider
        self._sse = SSEDecoder()
        self._text: list[str] = []
        self._calls = ToolCallAssembler(names)
        self._finish: str | None = None
        self._usage: Usage | None = None
        self._usage_sent = False
        self._model = model
        self._done = False

    @property
    def finished(self) -> bool:
        return self._done

    def feed(self, line: str) -> list[StreamEvent]:
        event = self._sse.feed(line)
        return self._on_event(event) if event is not None else []

    def feed_body(self, body: Any) -> list[StreamEvent]:
        events = self._on_chunk(body)
        self._done = True
        return events + self._final_events()

    def close(self) -> list[StreamEvent]:
        event = self._sse.flush()
        events = self._on_event(event) if event is not None else []
        if not self._done and self._finish is not None:
            # No [DONE], but the model said it finished and the body ended
            # cleanly: some OpenAI-compatible servers never send [DONE].
            self._done = True
            events += self._final_events()
        return events

    def completion(self) -> Completion:
        return Completion(
            text="".join(self._text),
            tool_calls=self._calls.calls(),
            usage=self._usage,
            finish_reason=self._finish,
            model=self._model,
        )

    # ------------------------------------------------------------------ chunks
    def _on_event(self, event: SSEEvent) -> list[StreamEvent]:
        data = event.data
        if data[:1] == "{":  # the hot path: one JSON chunk
            try:
                return self._on_chunk(json.loads(data))
            except ValueError:
                pass  # several chunks in one event; handled below
        if data.strip() == "[DONE]":
            self._done = True
            return self._final_events()
        events: list[StreamEvent] = []
        for chunk in json_payloads(data):
            events += self._on_chunk(chunk)
        return events

    def _on_chunk(self, chunk: Any) -> list[StreamEvent]:
        if not isinstance(chunk, dict):
            return []
        error = chunk.get("error")
        if error:
            if isinstance(error, dict):
                raise error_for_event(
                    self._provider,
                    str(error.get("type") or error.get("code") or ""),
                    str(error.get("message") or json.dumps(error)),
                )
            raise error_for_event(self._provider, "", str(error))
        model = chunk.get("model")
        if model and isinstance(model, str):
            self._model = model
        usage = chunk.get("usage")
        if usage and isinstance(usage, dict):
            self._usage = usage_from(usage)
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue  # we ask for one choice; ignore any others
            delta = choice.get("delta") or choice.get("message") or {}
            content = delta.get("content")
            if content and isinstance(content, str):
                self._text.append(content)
                events.append(TextDelta(content))
            calls = delta.get("tool_calls")
            if calls:
                for call in calls:
                    event = self._on_tool_call(call)
                    if event is not None:
                        events.append(event)
            reason = choice.get("finish_reason")
            if reason:
                self._finish = _FINISH.get(reason, reason)
        return events

    def _on_tool_call(self, call: Any) -> StreamEvent | None:
        if not isinstance(call, dict):
            return None
        function = call.get("function") or {}
        arguments = function.get("arguments") or ""
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)  # Ollama-style servers send an object
        index = call.get("index")
        return self._calls.delta(
            index if isinstance(index, int) else None,
            id=call.get("id") or None,
            name=function.get("name") or None,
            arguments=arguments,
        )

    def _final_events(self) -> list[StreamEvent]:
        if self._usage is None or self._usage_sent:
            return []
        self._usage_sent = True
        return [self._usage]
