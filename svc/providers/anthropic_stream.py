"""Parsing an Anthropic Messages API response into stream events (no I/O).

The stream is a sequence of typed SSE events: ``message_start`` (input token
usage), ``content_block_start``/``_delta``/``_stop`` for text and ``tool_use``
blocks (tool input arrives as ``input_json_delta`` fragments), ``message_delta``
(stop reason, cumulative output tokens), ``message_stop`` (the terminator),
``ping`` and ``error``.
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

FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


def input_tokens(usage: Mapping[str, Any]) -> int:
    """Prompt tokens, including those served from or written to the prompt cache."""
    return sum(
        int(usage.get(name) or 0)
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )


class AnthropicStream:
    """One response's parser state (see :class:`~svc.providers.transport.WireStream`)."""

    def __init__(self, provider: str, names: ToolNameMap, *, model: str | None = None) -> None:
        self._provider = provider
        self._sse = SSEDecoder()
        self._text: list[str] = []
        self._calls = ToolCallAssembler(names)
        self._finish: str | None = None
        self._input_tokens: int | None = None
        self._output_tokens: int | None = None
        self._model = model
        self._done = False

    @property
    def finished(self) -> bool:
        return self._done

    def feed(self, line: str) -> list[StreamEvent]:
        event = self._sse.feed(line)
        return self._on_event(event) if event is not None else []

    def feed_body(self, body: Any) -> list[StreamEvent]:
        """A non-streaming ``message`` object (or an ``error`` object)."""
        if not isinstance(body, dict):
            return []
        if body.get("type") == "error":
            return self._on_payload(body)
        events = self._on_payload({"type": "message_start", "message": body})
        for index, block in enumerate(body.get("content") or ()):
            events += self._on_payload(
                {"type": "content_block_start", "index": index, "content_block": block}
            )
        events += self._on_payload(
            {
                "type": "message_delta",
                "delta": {"stop_reason": body.get("stop_reason")},
                "usage": body.get("usage") or {},
            }
        )
        return events + self._on_payload({"type": "message_stop"})

    def close(self) -> list[StreamEvent]:
        event = self._sse.flush()
        return self._on_event(event) if event is not None else []

    def usage(self) -> Usage | None:
        if self._input_tokens is None and self._output_tokens is None:
            return None
        prompt, completion = self._input_tokens or 0, self._output_tokens or 0
        return Usage(
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
        )

    def completion(self) -> Completion:
        return Completion(
            text="".join(self._text),
            tool_calls=self._calls.calls(),
            usage=self.usage(),
            finish_reason=self._finish,
            model=self._model,
        )

    # ------------------------------------------------------------------ events
    def _on_event(self, event: SSEEvent) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        for payload in json_payloads(event.data):
            if isinstance(payload, dict):
                payload.setdefault("type", event.event)
                events += self._on_payload(payload)
        return events

    def _on_payload(self, payload: dict[str, Any]) -> list[StreamEvent]:
        kind = payload.get("type")
        if kind == "content_block_delta":
            return self._on_delta(payload.get("index", 0), payload.get("delta") or {})
        if kind == "content_block_start":
            return self._on_block_start(payload.get("index", 0), payload.get("content_block") or {})
        if kind == "message_start":
            message = payload.get("message") or {}
            if isinstance(message.get("model"), str):
                self._model = message["model"]
            usage = message.get("usage") or {}
            self._input_tokens = input_tokens(usage)
            if "output_tokens" in usage:
                self._output_tokens = int(usage["output_tokens"] or 0)
        elif kind == "message_delta":
            reason = (payload.get("delta") or {}).get("stop_reason")
            if reason:
                self._finish = FINISH_REASONS.get(reason, reason)
            usage = payload.get("usage") or {}
            if "output_tokens" in usage:  # cumulative, not incremental
                self._output_tokens = int(usage["output_tokens"] or 0)
            if any(name in usage for name in ("input_tokens", "cache_read_input_tokens")):
                self._input_tokens = input_tokens(usage)
        elif kind == "message_stop":
            self._done = True
            usage = self.usage()
            return [usage] if usage is not None else []
        elif kind == "error":
            error = payload.get("error") or {}
            raise error_for_event(
                self._provider,
                str(error.get("type") or "error"),
                str(error.get("message") or json.dumps(error)),
            )
        # ping, content_block_stop and unknown (future) events carry nothing for us.
        return []

    def _on_block_start(self, index: int, block: Mapping[str, Any]) -> list[StreamEvent]:
        kind = block.get("type")
        if kind == "text":
            text = block.get("text") or ""
            if text:
                self._text.append(text)
                return [TextDelta(text)]
        elif kind == "tool_use":
            tool_input = block.get("input")
            # Streaming sends ``input: {}`` and then the JSON as deltas; a
            # non-streaming body sends the whole object here.
            arguments = json.dumps(tool_input) if tool_input else ""
            event = self._calls.delta(
                index,
                id=block.get("id") or None,
                name=block.get("name") or None,
                arguments=arguments,
            )
            return [event] if event is not None else []
        # thinking / redacted_thinking / server tool blocks are not part of the answer.
        return []

    def _on_delta(self, index: int, delta: Mapping[str, Any]) -> list[StreamEvent]:
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text") or ""
            if text:
                self._text.append(text)
                return [TextDelta(text)]
        elif kind == "input_json_delta":
            event = self._calls.delta(index, arguments=delta.get("partial_json") or "")
            return [event] if event is not None else []
        return []
