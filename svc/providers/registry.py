"""The configured providers and how a run picks one (its model route).

One :class:`Provider` per ``settings.providers`` entry, built by wire format
(catalog ids by their catalog entry, any other id as OpenAI-compatible with its
own ``url``), plus the built-in offline ``local`` echo provider.

Model precedence for the default provider: an explicit model, then
``providers.<id>.default_model``, then ``settings.default_model``, then the
catalog's default. A provider named explicitly ignores ``settings.default_model``
unless it is also the default provider.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx

from .catalog import BY_ID, DEFAULT_TITLE, LOCAL_PROVIDER_ID, PLACEHOLDER_KEYS, SELECTION_ORDER
from .local import LocalEchoProvider
from .retry import RetryPolicy

# The wire clients and the chat types are imported on first use: an engine with
# no provider configured builds none at start-up (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    # Annotations only: svc.settings imports this package (for the catalog).
    from ..settings import ProviderConfig, Settings
    from .endpoint import Endpoint
    from .types import Provider

log = logging.getLogger(__name__)

AZURE_API_VERSION = "2024-10-21"


def endpoint_for(provider_id: str, config: ProviderConfig) -> Endpoint | None:
    """The endpoint a ``providers.<id>`` entry describes, or ``None`` if it names no URL.

    Extra (non-schema) entry fields understood here: ``headers`` (extra request
    headers), ``vision`` (override image support) and ``api_version`` (Azure).
    """
    from .endpoint import Endpoint

    info = BY_ID.get(provider_id)
    extra: Mapping[str, Any] = config.model_extra or {}
    base_url = config.url or (info.base_url if info else None)
    if not base_url:
        return None
    key = config.api_key.get_secret_value().strip() if config.api_key is not None else None
    headers = extra.get("headers") if isinstance(extra.get("headers"), dict) else {}
    params = {}
    if provider_id == "azure":
        params["api-version"] = str(extra.get("api_version") or AZURE_API_VERSION)
    vision = extra.get("vision")
    return Endpoint(
        id=provider_id,
        base_url=base_url,
        api_key=key if key not in PLACEHOLDER_KEYS else None,
        default_model=config.default_model or (info.default_model if info else None),
        # Unknown servers get no image parts unless the entry says they take them.
        supports_vision=bool(vision) if vision is not None else (info.vision if info else False),
        headers={str(k): str(v) for k, v in headers.items()},
        params=params,
    )


def build_provider(
    endpoint: Endpoint, http: httpx.AsyncClient, *, retry: RetryPolicy, title: str = DEFAULT_TITLE
) -> Provider:
    info = BY_ID.get(endpoint.id)
    wire = info.wire if info else "openai"
    if wire == "anthropic":
        from .anthropic import AnthropicProvider

        return AnthropicProvider(endpoint, http, retry=retry)
    if wire == "cohere":
        from .cohere import CohereProvider

        return CohereProvider(endpoint, http, retry=retry)
    from .openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(endpoint, http, retry=retry, title=title)


class ProviderRegistry:
    def __init__(
        self, settings: Settings, http: httpx.AsyncClient, *, retry_base_delay: float = 0.3
    ) -> None:
        self._http = http
        self._retry = RetryPolicy(base_delay=retry_base_delay)
        self._local = LocalEchoProvider()
        self._providers: dict[str, Provider] = {}
        self._own_models: dict[str, str] = {}
        self._settings = settings
        self.rebuild(settings)

    def rebuild(self, settings: Settings) -> None:
        """Replace every provider from ``settings`` (after a config reload)."""
        providers: dict[str, Provider] = {}
        own_models: dict[str, str] = {}
        title = settings.protocol_title or DEFAULT_TITLE
        for provider_id, config in settings.providers.items():
            if provider_id == LOCAL_PROVIDER_ID:
                continue  # built in; an entry cannot replace it
            endpoint = endpoint_for(provider_id, config)
            if endpoint is None:
                log.warning(
                    "provider entry ignored: a custom provider needs a url",
                    extra={"provider": provider_id},
                )
                continue
            providers[provider_id] = build_provider(
                endpoint, self._http, retry=self._retry, title=title
            )
            if config.default_model:
                own_models[provider_id] = config.default_model
        self._settings = settings
        self._providers = providers
        self._own_models = own_models

    # ------------------------------------------------------------------ lookup
    def configured_ids(self) -> list[str]:
        """Configured providers (not ``local``): catalog selection order, then custom ids sorted."""
        known = [pid for pid in SELECTION_ORDER if pid in self._providers]
        custom = sorted(pid for pid in self._providers if pid not in BY_ID)
        return known + custom

    def is_configured(self, provider_id: str) -> bool:
        return provider_id == LOCAL_PROVIDER_ID or provider_id in self._providers

    def get(self, provider_id: str) -> Provider:
        provider_id = provider_id.strip()
        if provider_id == LOCAL_PROVIDER_ID:
            return self._local
        provider = self._providers.get(provider_id)
        if provider is None:
            from .types import PROVIDER_NOT_CONFIGURED, ProviderError

            configured = ", ".join(self.configured_ids()) or "none"
            raise ProviderError(
                f"provider `{provider_id}` is not configured. configured providers: {configured}",
                code=PROVIDER_NOT_CONFIGURED,
                status=400,
                retryable=False,
                provider=provider_id,
            )
        return provider

    def default_provider_id(self) -> str:
        preferred = (self._settings.default_provider or "").strip()
        if preferred and self.is_configured(preferred):
            return preferred
        configured = self.configured_ids()
        return configured[0] if configured else LOCAL_PROVIDER_ID

    def resolve(
        self, provider_id: str | None = None, model_id: str | None = None
    ) -> tuple[Provider, str]:
        """A run's model route: ``(provider, model)``.

        Raises PROVIDER_NOT_CONFIGURED for an unknown provider and
        MODEL_SELECTION_REQUIRED when no model can be determined.
        """
        default_id = self.default_provider_id()
        chosen = (provider_id or "").strip() or default_id
        provider = self.get(chosen)
        model = (model_id or "").strip() or self._own_models.get(chosen)
        if not model and chosen == default_id and chosen != LOCAL_PROVIDER_ID:
            model = (self._settings.default_model or "").strip() or None
        model = model or provider.default_model
        if not model:
            from .types import MODEL_SELECTION_REQUIRED, ProviderError

            raise ProviderError(
                f"no model selected for provider `{chosen}`: pass a model or set "
                f"`providers.{chosen}.default_model`",
                code=MODEL_SELECTION_REQUIRED,
                status=400,
                retryable=False,
                provider=chosen,
            )
        return provider, model
