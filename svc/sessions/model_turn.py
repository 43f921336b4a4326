"""One model turn of a run: stream the provider, publish what streams, account the usage."""

from __future__ import annotations

from collections.abc import Sequence

import trio

from ..events import EventLog
from ..providers.types import (
    ChatMessage,
    ChatRequest,
    Completion,
    Provider,
    ProviderError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from .deltas import DeltaCoalescer
from .run_transcript import RunTranscript


async def stream_turn(
    provider: Provider,
    request: ChatRequest,
    *,
    events: EventLog,
    session_id: str,
    run_id: str,
    transcript: RunTranscript,
) -> Completion:
    """Stream one completion; text deltas and tool-call previews are events as they come.

    A :class:`ProviderError` is raised as itself (not in an exception group),
    carrying what streamed before it as its partial text.
    """
    text_part_id = transcript.next_part_id()
    message_id = transcript.id
    streamed: list[str] = []
    publish = events.publish

    def emit_text(text: str) -> None:
        publish(
            "message.part.updated",
            {
                "part": {
                    "id": text_part_id,
                    "sessionID": session_id,
                    "messageID": message_id,
                    "type": "text",
                    "text": text,
                },
                "delta": text,
                "sessionID": session_id,
                "runID": run_id,
            },
        )
        # The same delta under the name clients' quick-start loops read
        # (`session.response` with `properties.delta`); see docs/api.md.
        publish(
            "session.response",
            {
                "delta": text,
                "sessionID": session_id,
                "runID": run_id,
                "messageID": message_id,
                "partID": text_part_id,
            },
        )

    deltas = DeltaCoalescer(emit_text)

    def sink(event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            if event.text:
                streamed.append(event.text)
                deltas.add(event.text)
        elif isinstance(event, ToolCallDelta):
            deltas.flush()  # keep text and tool events in the order they streamed
            publish(
                "message.part.updated",
                {
                    "part": {
                        "id": event.id or f"{message_id}-call{event.index}",
                        "sessionID": session_id,
                        "messageID": message_id,
                        "type": "tool",
                        "tool": event.name,
                        "state": "pending",
                    },
                    "toolCallDelta": {
                        "id": event.id,
                        "tool": event.name,
                        "argsDelta": event.arguments_delta,
                    },
                    "sessionID": session_id,
                    "runID": run_id,
                },
            )

    failure: ProviderError | None = None
    # What streamed so far belongs to the transcript even if the run is
    # cancelled mid-stream (the settlement keeps it).
    transcript.inflight = streamed
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(deltas.run)
            try:
                completion = await provider.chat(request, sink)
            except ProviderError as exc:
                # Kept out of the nursery, so it reaches the loop as itself
                # rather than wrapped in an exception group.
                failure = exc
            finally:
                # The stream is over: the window timer is no longer needed.
                nursery.cancel_scope.cancel()
    finally:
        deltas.flush()
    transcript.inflight = None
    if failure is not None:
        if not failure.partial_text and streamed:
            failure.partial = Completion(text="".join(streamed))
        raise failure
    return completion


def turn_usage(completion: Completion, messages: Sequence[ChatMessage]) -> Usage:
    """The provider's usage, or an estimate (about four characters a token) when it gave none."""
    usage = completion.usage
    if usage is not None and (
        usage.total_tokens > 0 or usage.prompt_tokens + usage.completion_tokens > 0
    ):
        return usage
    prompt = sum(len(m.content) for m in messages) // 4
    done = max(1, len(completion.text) // 4) if completion.text else 0
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=done,
        total_tokens=prompt + done,
        source="estimated",
    )
