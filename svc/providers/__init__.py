"""Model providers: the catalog, the provider-neutral chat types, the wire clients and the registry.

Every name loads with its module on first use (``svc.settings`` reads the
catalog at start-up; the chat types, the HTTP clients and their wire parsers
wait for the first model call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .anthropic import (  # noqa: F401
        AnthropicProvider,
    )
    from .catalog import (  # noqa: F401
        BY_ID,
        LOCAL_MODEL_ID,
        LOCAL_PROVIDER_ID,
        PROVIDER_IDS,
        PROVIDERS,
        SELECTION_ORDER,
        ProviderInfo,
    )
    from .cohere import (  # noqa: F401
        CohereProvider,
    )
    from .endpoint import (  # noqa: F401
        Endpoint,
    )
    from .local import (  # noqa: F401
        LocalEchoProvider,
    )
    from .openai_compat import (  # noqa: F401
        OpenAICompatProvider,
    )
    from .registry import (  # noqa: F401
        ProviderRegistry,
    )
    from .retry import (  # noqa: F401
        RetryPolicy,
    )
    from .types import (  # noqa: F401
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

_exports = LazyExports(
    __name__,
    {
        ".anthropic": [
            "AnthropicProvider",
        ],
        ".catalog": [
            "BY_ID",
            "LOCAL_MODEL_ID",
            "LOCAL_PROVIDER_ID",
            "PROVIDER_IDS",
            "PROVIDERS",
            "SELECTION_ORDER",
            "ProviderInfo",
        ],
        ".cohere": [
            "CohereProvider",
        ],
        ".endpoint": [
            "Endpoint",
        ],
        ".local": [
            "LocalEchoProvider",
        ],
        ".openai_compat": [
            "OpenAICompatProvider",
        ],
        ".registry": [
            "ProviderRegistry",
        ],
        ".retry": [
            "RetryPolicy",
        ],
        ".types": [
            "AUTHENTICATION_ERROR",
            "CONTEXT_LENGTH_EXCEEDED",
            "MODEL_SELECTION_REQUIRED",
            "PROVIDER_NOT_CONFIGURED",
            "PROVIDER_REQUEST_INVALID",
            "PROVIDER_SERVER_ERROR",
            "PROVIDER_STREAM_INTERRUPTED",
            "PROVIDER_UNAVAILABLE",
            "RATE_LIMIT_EXCEEDED",
            "ChatMessage",
            "ChatRequest",
            "Completion",
            "Image",
            "Provider",
            "ProviderError",
            "Role",
            "Sink",
            "StreamEvent",
            "TextDelta",
            "ToolCall",
            "ToolCallDelta",
            "ToolChoice",
            "ToolSpec",
            "Usage",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
