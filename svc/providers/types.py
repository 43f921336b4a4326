"""The provider-neutral chat model: messages in, streamed events and a completion out.

Every wire format (OpenAI-compatible chat completions, the Anthropic Messages
API, Cohere v2 chat, the local echo model) maps to and from these records, so
the agent loop never sees a vendor's shapes.

Streaming is callback-based: :meth:`Provider.chat` calls ``sink(event)``
synchronously for every :data:`StreamEvent` as it arrives and returns the
aggregated :class:`Completion` at the end. (A callback, not an async generator:
under trio a generator suspended inside the HTTP client's scopes is a hazard.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

import attrs

from ..errors import SvcError

Role = Literal["system", "user", "assistant", "tool"]
ToolChoice = Literal["auto", "required", "none"]


@attrs.frozen
class ToolSpec:
    """A tool offered to the model."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    """JSON Schema of the arguments (an object schema)."""


@attrs.frozen
class ToolCall:
    """A tool call the model made. ``arguments`` is parsed; ``raw_arguments`` is as sent."""

    id: str
    name: str
    arguments: Mapping[str, Any]
    raw_arguments: str = ""


@attrs.frozen
class Image:
    """An image attached to a user message: an http(s) URL or a ``data:`` URL."""

    url: str
    mime: str = "image/png"


@attrs.frozen
class ChatMessage:
    role: Role
    content: str = ""
    images: tuple[Image, ...] = ()
    """User messages only; sent only to vision-capable providers."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Assistant messages that called tools."""
    tool_call_id: str | None = None
    """Tool messages: the call this is the result of."""
    name: str | None = None
    """Tool messages: the tool's name."""
    is_error: bool = False
    """Tool messages: the call failed (Anthropic ``is_error``)."""


@attrs.frozen
class ChatRequest:
    model: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice = "auto"
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    metadata: Mapping[str, str] = attrs.field(factory=dict)


# ------------------------------------------------------------------ stream events
@attrs.frozen
class TextDelta:
    text: str


@attrs.frozen
class ToolCallDelta:
    """Incremental tool-call arguments (for live previews); ``index`` orders calls."""

    index: int
    id: str | None
    name: str | None
    arguments_delta: str


@attrs.frozen
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    source: Literal["provider", "estimated"] = "provider"


StreamEvent = TextDelta | ToolCallDelta | Usage
Sink = Callable[[StreamEvent], None]


@attrs.frozen
class Completion:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    """Provider-reported usage, if the provider sent it."""
    finish_reason: str | None = None
    model: str | None = None


class Provider(Protocol):
    """One configured provider (a base URL, a key, a wire format)."""

    id: str
    default_model: str | None
    supports_vision: bool

    async def chat(self, request: ChatRequest, sink: Sink | None = None) -> Completion:
        """Stream one model turn, calling ``sink`` per event; raise :class:`ProviderError`."""
        ...


# ------------------------------------------------------------------ errors
class ProviderError(SvcError):
    """The model provider failed."""

    code = "PROVIDER_SERVER_ERROR"
    status = 502
    retryable = True
    partial: Completion | None = None
    """What the model had streamed before the failure (``None`` if nothing was)."""

    @property
    def partial_text(self) -> str:
        """The text streamed before the failure, so the transcript can keep it."""
        return self.partial.text if self.partial is not None else ""

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        provider: str | None = None,
        upstream_status: int | None = None,
        retryable: bool | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message, code=code, retryable=retryable, **extra)
        self.provider = provider
        self.upstream_status = upstream_status


# Codes a run can end with when its provider fails (the wire contract).
AUTHENTICATION_ERROR = "AUTHENTICATION_ERROR"
RATE_LIMIT_EXCEEDED = "RATE_LIMIT_EXCEEDED"
CONTEXT_LENGTH_EXCEEDED = "CONTEXT_LENGTH_EXCEEDED"
PROVIDER_SERVER_ERROR = "PROVIDER_SERVER_ERROR"
PROVIDER_UNAVAILABLE = "PROVIDER_UNAVAILABLE"
PROVIDER_REQUEST_INVALID = "PROVIDER_REQUEST_INVALID"
PROVIDER_STREAM_INTERRUPTED = "PROVIDER_STREAM_INTERRUPTED"
PROVIDER_NOT_CONFIGURED = "PROVIDER_NOT_CONFIGURED"
MODEL_SELECTION_REQUIRED = "MODEL_SELECTION_REQUIRED"
