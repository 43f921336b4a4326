"""The built-in ``local`` provider: an offline echo model (``echo-1``).

It makes the engine and CLI usable with no provider configured and no network:
it replies with the last user message, streamed word by word, and never calls
tools. After a tool result it replies with a one-line summary quoting it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import trio

from .catalog import LOCAL_MODEL_ID, LOCAL_PROVIDER_ID

# The chat types are imported on first use: the registry builds this provider at
# start-up, long before its first chat (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .types import ChatMessage, ChatRequest, Completion, Sink

QUOTE_LIMIT = 200
_WORDS = re.compile(r"\s*\S+\s*|\s+")


def estimate_tokens(text: str) -> int:
    """About four characters per token, at least one."""
    return max(1, round(len(text) / 4))


def echo_reply(messages: tuple[ChatMessage, ...]) -> str:
    """What ``echo-1`` answers to a transcript."""
    if messages and messages[-1].role == "tool":
        result = messages[-1]
        quoted = " ".join(result.content.split())
        if len(quoted) > QUOTE_LIMIT:
            quoted = quoted[: QUOTE_LIMIT - 1] + "…"
        outcome = "failed" if result.is_error else "returned"
        return f"Tool `{result.name or 'tool'}` {outcome}: {quoted}"
    for message in reversed(messages):
        if message.role == "user":
            return message.content
    return ""


def split_words(text: str) -> list[str]:
    """``text`` in streamable pieces (each word with its surrounding spaces).

    The pieces join back to ``text``.
    """
    return _WORDS.findall(text)


class LocalEchoProvider:
    """The offline echo model (satisfies :class:`~svc.providers.types.Provider`)."""

    def __init__(self) -> None:
        self.id = LOCAL_PROVIDER_ID
        self.default_model: str | None = LOCAL_MODEL_ID
        self.supports_vision = False

    def __repr__(self) -> str:
        return "LocalEchoProvider()"

    async def chat(self, request: ChatRequest, sink: Sink | None = None) -> Completion:
        from .types import Completion, TextDelta, Usage

        reply = echo_reply(request.messages)
        for piece in split_words(reply):
            # A checkpoint per piece: cancellation works and other tasks run,
            # as they would while a real model streams.
            await trio.lowlevel.checkpoint()
            if sink is not None:
                sink(TextDelta(piece))
        await trio.lowlevel.checkpoint()
        prompt = estimate_tokens("".join(m.content for m in request.messages))
        completion = estimate_tokens(reply)
        usage = Usage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
            source="estimated",
        )
        if sink is not None:
            sink(usage)
        return Completion(
            text=reply, usage=usage, finish_reason="stop", model=request.model or LOCAL_MODEL_ID
        )
