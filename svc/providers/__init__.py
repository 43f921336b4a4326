"""Model providers: the catalog, the provider-neutral chat types, the wire clients and the registry.

The catalog and types load eagerly (``svc.settings`` needs the catalog); the
HTTP clients and the registry load on first use, so ``import svc`` does not pay
for httpx.
"""

from typing import TYPE_CHECKING, Any

from .catalog import (
    BY_ID,
    LOCAL_MODEL_ID,
    LOCAL_PROVIDER_ID,
    PROVIDER_IDS,
    PROVIDERS,
    SELECTION_ORDER,
    ProviderInfo,
)
from .types import (
    AUTHENTICATION_ERROR,
    CONTEXT_LENGTH_EXCEEDED,
    MODEL_SELECTION_REQUIRED,
    PROVIDER_NOT_CONFIGURED,
    PROVIDER_REQUEST_INVALID,
    PROVIDER_SERVER_ERROR,
    PROVIDER_STREAM_INTERRUPTED,
    PROVIDER_UNAVAILABLE,
    RATE_LIMIT_EXCEEDED,
    ChatMessage,
    ChatRequest,
    Completion,
    Image,
    Provider,
    ProviderError,
    Role,
    Sink,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolChoice,
    ToolSpec,
    Usage,
)

if TYPE_CHECKING:
    from .anthropic import AnthropicProvider
    from .cohere import CohereProvider
    from .endpoint import Endpoint
    from .local import LocalEchoProvider
    from .openai_compat import OpenAICompatProvider
    from .registry import ProviderRegistry
    from .transport import RetryPolicy

_LAZY = {
    "AnthropicProvider": ".anthropic",
    "CohereProvider": ".cohere",
    "Endpoint": ".endpoint",
    "LocalEchoProvider": ".local",
    "OpenAICompatProvider": ".openai_compat",
    "ProviderRegistry": ".registry",
    "RetryPolicy": ".transport",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AUTHENTICATION_ERROR",
    "BY_ID",
    "CONTEXT_LENGTH_EXCEEDED",
    "LOCAL_MODEL_ID",
    "LOCAL_PROVIDER_ID",
    "MODEL_SELECTION_REQUIRED",
    "PROVIDERS",
    "PROVIDER_IDS",
    "PROVIDER_NOT_CONFIGURED",
    "PROVIDER_REQUEST_INVALID",
    "PROVIDER_SERVER_ERROR",
    "PROVIDER_STREAM_INTERRUPTED",
    "PROVIDER_UNAVAILABLE",
    "RATE_LIMIT_EXCEEDED",
    "SELECTION_ORDER",
    "AnthropicProvider",
    "ChatMessage",
    "ChatRequest",
    "CohereProvider",
    "Completion",
    "Endpoint",
    "Image",
    "LocalEchoProvider",
    "OpenAICompatProvider",
    "Provider",
    "ProviderError",
    "ProviderInfo",
    "ProviderRegistry",
    "RetryPolicy",
    "Role",
    "Sink",
    "StreamEvent",
    "TextDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolChoice",
    "ToolSpec",
    "Usage",
]
