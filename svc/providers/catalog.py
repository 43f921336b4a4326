"""The providers the engine knows by id: key variables, default URLs and models.

This is data, shared by settings (to map API-key variables into config) and by
the provider registry (to build clients). Order matters: it is the CLI's
``providers`` listing and, for :data:`SELECTION_ORDER`, the fallback order when
no default provider is configured.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class ProviderInfo:
    id: str
    name: str
    key_envs: tuple[str, ...]
    """Standard API-key variables, first non-empty wins."""
    base_url: str
    default_model: str
    wire: str
    """``openai`` (chat completions), ``anthropic`` (Messages API) or ``cohere`` (v2 chat)."""
    url_env: str | None = None
    needs_key: bool = True
    vision: bool = True


PROVIDERS: tuple[ProviderInfo, ...] = (
    ProviderInfo(
        "openai", "OpenAI", ("OPENAI_API_KEY",), "https://api.openai.com/v1", "gpt-5.2", "openai"
    ),
    ProviderInfo(
        "openrouter",
        "OpenRouter",
        ("OPENROUTER_API_KEY",),
        "https://openrouter.ai/api/v1",
        "openai/gpt-4o-mini",
        "openai",
    ),
    ProviderInfo(
        "anthropic",
        "Anthropic",
        ("ANTHROPIC_API_KEY",),
        "https://api.anthropic.com/v1",
        "claude-sonnet-4-6",
        "anthropic",
    ),
    ProviderInfo(
        "ollama",
        "Ollama",
        (),
        "http://127.0.0.1:11434/v1",
        "llama3.1:8b",
        "openai",
        url_env="OLLAMA_URL",
        needs_key=False,
        vision=False,
    ),
    ProviderInfo(
        "groq",
        "Groq",
        ("GROQ_API_KEY",),
        "https://api.groq.com/openai/v1",
        "llama-3.1-8b-instant",
        "openai",
        vision=False,
    ),
    ProviderInfo(
        "mistral",
        "Mistral",
        ("MISTRAL_API_KEY",),
        "https://api.mistral.ai/v1",
        "mistral-small-latest",
        "openai",
    ),
    ProviderInfo(
        "together",
        "Together",
        ("TOGETHER_API_KEY",),
        "https://api.together.xyz/v1",
        "meta-llama/Llama-3.1-8B-Instruct-Turbo",
        "openai",
    ),
    ProviderInfo(
        "azure",
        "Azure OpenAI",
        ("AZURE_OPENAI_API_KEY", "AZURE_API_KEY"),
        "https://example.openai.azure.com/openai/deployments/default",
        "gpt-4o-mini",
        "openai",
    ),
    ProviderInfo(
        "bedrock",
        "Amazon Bedrock",
        ("BEDROCK_API_KEY",),
        "https://bedrock-runtime.us-east-1.amazonaws.com",
        "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "openai",
    ),
    ProviderInfo(
        "vertex",
        "Google Vertex AI",
        ("VERTEX_API_KEY",),
        "https://aiplatform.googleapis.com/v1",
        "gemini-1.5-flash",
        "openai",
    ),
    ProviderInfo(
        "copilot",
        "GitHub Copilot",
        ("GITHUB_TOKEN", "COPILOT_API_KEY"),
        "https://api.githubcopilot.com",
        "gpt-4o-mini",
        "openai",
    ),
    ProviderInfo(
        "cohere",
        "Cohere",
        ("COHERE_API_KEY",),
        "https://api.cohere.com/v2",
        "command-r-plus",
        "cohere",
    ),
)

PROVIDER_IDS: tuple[str, ...] = tuple(p.id for p in PROVIDERS)
BY_ID: dict[str, ProviderInfo] = {p.id: p for p in PROVIDERS}

# When nothing names a provider, the first configured one in this order is used.
SELECTION_ORDER: tuple[str, ...] = (
    "ollama",
    "openai",
    "openrouter",
    "groq",
    "mistral",
    "together",
    "azure",
    "bedrock",
    "vertex",
    "copilot",
    "anthropic",
    "cohere",
)

# Values people paste as "no key" placeholders; treated as unset.
PLACEHOLDER_KEYS = frozenset({"", "x", "placeholder"})

# The app name sent (``x-title``) to an OpenAI-wire provider that displays one,
# unless ``protocol_title`` names another. Kept here, not with that wire client,
# because the registry reads it at start-up, before any client is needed.
DEFAULT_TITLE = "svc"

LOCAL_PROVIDER_ID = "local"
LOCAL_MODEL_ID = "echo-1"
DEFAULT_LOCAL_MODEL_URL = "http://127.0.0.1:11434/v1"


def model_env_names(info: ProviderInfo) -> tuple[str, ...]:
    """Variables that override a provider's default model when its key variable is set."""
    upper = info.id.upper().replace("-", "_")
    names = [f"{upper}_MODEL", f"{upper}_DEFAULT_MODEL"]
    names.extend(k.replace("API_KEY", "MODEL") for k in info.key_envs if "API_KEY" in k)
    return tuple(dict.fromkeys(names))


def setup_hint(provider_id: str) -> str:
    """How to configure ``provider_id``: its key variable (or URL variable) or config entry."""
    info = BY_ID.get(provider_id)
    if info is None:
        return f"add `providers.{provider_id}` with a `url` to the config"
    if info.key_envs:
        return f"set {' or '.join(info.key_envs)} (or `providers.{provider_id}.api_key`)"
    if info.url_env:
        return f"set {info.url_env} (or `providers.{provider_id}.url`)"
    return f"add `providers.{provider_id}` to the config"


def key_hint(provider_id: str) -> str:
    """The variable (or config field) holding ``provider_id``'s key, for authentication errors."""
    info = BY_ID.get(provider_id)
    if info is not None and info.key_envs:
        return f"{' or '.join(info.key_envs)} (or `providers.{provider_id}.api_key`)"
    return f"`providers.{provider_id}.api_key`"
