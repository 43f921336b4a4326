"""Scripted model turns for the fake provider servers.

A :class:`Turn` describes one response, independent of the wire; each fake
server renders it in its own protocol::

    server.enqueue(
        Turn.reply("Hello there"),                       # streamed word by word
        Turn(tool_calls=(FakeToolCall("read", {"path": "a.txt"}),)),
        Turn.failure(429, retry_after=0.01),             # an HTTP error
        Turn(chunks=["x"] * 5000),                       # high volume
        Turn(chunks=["a", "b", "c"], drop_after=2),      # connection aborted mid-stream
    )

Each request pops the next turn; with the queue empty the server answers with
``server.default(request)``, which echoes the last user message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs
import trio

from svc.providers.tool_names import sanitize_tool_name

_WORDS = re.compile(r"\s*\S+\s*|\s+")


def split_words(text: str) -> tuple[str, ...]:
    """``text`` as word chunks (each word with its spaces); they join back to ``text``."""
    return tuple(_WORDS.findall(text))


@attrs.frozen
class FakeToolCall:
    """A tool call the fake model makes.

    ``name`` may be the tool's original name (``mcp.fs.read``): the server sends
    the wire name the client offered for it. ``raw_arguments`` overrides the
    JSON encoding of ``arguments`` (to send invalid JSON, say).
    """

    name: str
    arguments: Mapping[str, Any] = attrs.field(factory=dict)
    id: str | None = None
    raw_arguments: str | None = None

    def arguments_text(self) -> str:
        return (
            self.raw_arguments
            if self.raw_arguments is not None
            else json.dumps(dict(self.arguments))
        )


@attrs.frozen
class FakeUsage:
    input_tokens: int
    output_tokens: int


@attrs.frozen
class StreamError:
    """An error reported inside a 200 stream (after the turn's chunks)."""

    type: str = "overloaded_error"
    message: str = "Overloaded"


@attrs.frozen
class HttpError:
    status: int
    body: Mapping[str, Any] | None = None
    """The JSON body; ``None``: the wire's usual error shape with ``message``."""
    message: str = "fake upstream error"
    retry_after: float | None = None


def _tuple(value: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(value)


@attrs.frozen(eq=False)
class Turn:
    """One scripted response (see the module docstring)."""

    chunks: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    tool_calls: tuple[FakeToolCall, ...] = attrs.field(default=(), converter=_tuple)
    usage: FakeUsage | Literal["auto"] | None = "auto"
    """``"auto"``: derived from the request and the chunks; ``None``: not reported."""
    finish_reason: str | None = None
    """The wire's raw value; ``None``: the wire's usual one for the turn."""
    error: HttpError | None = None
    stream_error: StreamError | None = None
    delay: float = 0.0
    """Seconds (real time) slept before each content chunk."""
    drop_after: int | None = None
    """Abort the connection after this many content chunks.

    Text chunks count first, then tool-call fragments."""
    gate: trio.Event | None = None
    """Hold the response after ``gate_after`` content chunks until the event is set."""
    gate_after: int = 0
    omit_terminator: bool = False
    """End the body cleanly but without the wire's closing events (OpenAI: finish
    chunk, usage and ``[DONE]``; Anthropic: ``message_delta``/``message_stop``;
    Cohere: ``message-end``), as a server that gave up mid-answer would."""
    argument_chunk: int = 8
    """Tool-call arguments are streamed in pieces of this many characters."""
    model: str | None = None
    """The model name reported; ``None``: the requested one."""

    @classmethod
    def reply(cls, text: str, **kwargs: Any) -> Turn:
        """A text answer streamed word by word."""
        return cls(chunks=split_words(text), **kwargs)

    @classmethod
    def calls(cls, *calls: FakeToolCall, text: str = "", **kwargs: Any) -> Turn:
        """Tool calls, optionally preceded by text."""
        return cls(chunks=split_words(text), tool_calls=calls, **kwargs)

    @classmethod
    def failure(
        cls,
        status: int,
        message: str = "fake upstream error",
        *,
        body: Mapping[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> Turn:
        """An HTTP error response."""
        return cls(
            error=HttpError(status=status, body=body, message=message, retry_after=retry_after)
        )

    @property
    def text(self) -> str:
        return "".join(self.chunks)


def wire_tool_name(name: str, offered: Sequence[str]) -> str:
    """The name to send for a scripted call: as offered by the client, else as scripted.

    Lets a script say ``mcp.fs.read`` while the client offered ``mcp_fs_read``.
    """
    if name in offered:
        return name
    sanitized = sanitize_tool_name(name)
    return sanitized if sanitized in offered else name


def argument_pieces(text: str, size: int) -> list[str]:
    """``text`` in pieces of ``size`` characters (at least one piece, possibly empty)."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def resolve_usage(turn: Turn, prompt: Any) -> FakeUsage | None:
    """The usage a turn reports; ``"auto"`` estimates from the prompt and the turn's size."""
    if turn.usage != "auto":
        return turn.usage
    prompt_tokens = max(1, len(json.dumps(prompt, default=str)) // 4)
    output_tokens = max(
        1,
        len(turn.chunks)
        + sum(
            len(argument_pieces(call.arguments_text(), turn.argument_chunk))
            for call in turn.tool_calls
        ),
    )
    return FakeUsage(prompt_tokens, output_tokens)


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the ``text`` parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type", "text") == "text"
        )
    return ""


def last_user_text(messages: Any) -> str:
    """The text of the last user message that has text (wire-neutral enough for all three)."""
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            text = text_of(message.get("content"))
            if text:
                return text
    return ""
