"""Parsing a Cohere v2 chat response into stream events (no I/O).

Every SSE event's data is a JSON object with a ``type``: ``message-start``,
``content-start``/``content-delta``/``content-end`` (text in
``delta.message.content.text``), ``tool-plan-delta`` (the model's plan before
calling tools; surfaced as text, since it is what the model says in a
tool-calling turn), ``tool-call-start``/``-delta``/``-end`` and ``message-end``
(the terminator, with ``finish_reason`` and usage).
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
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "TOOL_CALL": "tool_calls",
}


def usage_from(usage: Mapping[str, Any]) -> Usage | None:
    """Token counts from ``tokens`` (what the model saw), else ``billed_units``."""
    for key in ("tokens", "billed_units"):
        counts = usage.get(key)
        if isinstance(counts, dict) and ("input_tokens" in counts or "output_tokens" in counts):
            prompt = int(counts.get("input_tokens") or 0)
            completion = int(counts.get("output_tokens") or 0)
            return Usage(
                prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
            )
    return None


def _message(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    return (payload.get("delta") or {}).get("message") or {}


class CohereStream:
    """One response's parser state (see :class:`~svc.providers.transport.WireStream`)."""

    def __init__(self, provider: str, names: ToolNameMap, *, model: str | None = None) -> None:
        self._provider = provider
        self._sse = SSEDecoder()
        self._text: list[str] = []
        self._calls = ToolCallAssembler(names)
        self._finish: str | None = None
        self._usage: Usage | None = None
        self._model = model
        self._done = False

    @property
    def finished(self) -> bool:
        return self._done

    def feed(self, line: str) -> list[StreamEvent]:
        event = self._sse.feed(line)
        return self._on_event(event) if event is not None else []

    def feed_body(self, body: Any) -> list[StreamEvent]:
        """A non-streaming response.

        ``{message: {content, tool_plan, tool_calls}, finish_reason, usage}``.
        """
        if not isinstance(body, dict):
            return []
        message = body.get("message") or {}
        events: list[StreamEvent] = []
        if message.get("tool_plan"):
            events += self._on_payload(
                {
                    "type": "tool-plan-delta",
                    "delta": {"message": {"tool_plan": message["tool_plan"]}},
                }
            )
        for block in message.get("content") or ():
            if isinstance(block, dict) and block.get("type", "text") == "text":
                events += self._on_payload(
                    {
                        "type": "content-delta",
                        "delta": {"message": {"content": {"text": block.get("text")}}},
                    }
                )
        for index, call in enumerate(message.get("tool_calls") or ()):
            events += self._on_payload(
                {
                    "type": "tool-call-start",
                    "index": index,
                    "delta": {"message": {"tool_calls": call}},
                }
            )
        return events + self._on_payload(
            {
                "type": "message-end",
                "delta": {
                    "finish_reason": body.get("finish_reason"),
                    "usage": body.get("usage") or {},
                },
            }
        )

    def close(self) -> list[StreamEvent]:
        event = self._sse.flush()
        return self._on_event(event) if event is not None else []

    def completion(self) -> Completion:
        return Completion(
            text="".join(self._text),
            tool_calls=self._calls.calls(),
            usage=self._usage,
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

    def _on_payload(self, payload: Mapping[str, Any]) -> list[StreamEvent]:
        kind = payload.get("type")
        if kind == "content-delta":
            content = _message(payload).get("content") or {}
            return self._text_event(content.get("text") if isinstance(content, dict) else None)
        if kind == "tool-plan-delta":
            return self._text_event(_message(payload).get("tool_plan"))
        if kind in ("tool-call-start", "tool-call-delta"):
            call = _message(payload).get("tool_calls") or {}
            function = call.get("function") or {}
            arguments = function.get("arguments") or ""
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments)
            event = self._calls.delta(
                payload.get("index") if isinstance(payload.get("index"), int) else None,
                id=call.get("id") or None,
                name=function.get("name") or None,
                arguments=arguments,
            )
            return [event] if event is not None else []
        if kind == "message-start":
            if isinstance(payload.get("model"), str):
                self._model = payload["model"]
        elif kind == "message-end":
            return self._on_end(payload.get("delta") or {})
        elif kind == "error":
            raise error_for_event(
                self._provider,
                str(payload.get("error_type") or "error"),
                str(payload.get("message") or payload.get("error") or "stream error"),
            )
        # content-start/-end, tool-call-end, citations and unknown events carry nothing for us.
        return []

    def _on_end(self, delta: Mapping[str, Any]) -> list[StreamEvent]:
        reason = delta.get("finish_reason")
        if reason == "ERROR":
            raise error_for_event(
                self._provider, "server_error", str(delta.get("error") or "generation failed")
            )
        if reason:
            self._finish = FINISH_REASONS.get(reason, str(reason).lower())
        self._usage = usage_from(delta.get("usage") or {})
        self._done = True
        return [self._usage] if self._usage is not None else []

    def _text_event(self, text: Any) -> list[StreamEvent]:
        if not isinstance(text, str) or not text:
            return []
        self._text.append(text)
        return [TextDelta(text)]
