"""The configured providers and how a run picks one (its model route).

One :class:`Provider` per ``settings.providers`` entry, built by wire format
(catalog ids by their catalog entry, any other id as OpenAI-compatible with its
own ``url``), plus the built-in offline ``local`` echo provider.

Model precedence for the default provider: an explicit model, then
``providers.<id>.default_model``, then ``settings.default_model``, then the
catalog's default. A provider named explicitly ignores ``settings.default_model``
unless it is also the default provider.

:func:`default_route` says which provider and model answer when nothing names
one, and why (``flag``, ``config``, ``first_configured`` or ``fallback``): the
CLI and ``GET /config/providers`` tell a newcomer when the offline echo model
answered and how to configure a real one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs
import httpx

from .catalog import (
    BY_ID,
    DEFAULT_TITLE,
    LOCAL_MODEL_ID,
    LOCAL_PROVIDER_ID,
    PLACEHOLDER_KEYS,
    PROVIDER_IDS,
    SELECTION_ORDER,
    setup_hint,
)
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
    raw_headers = extra.get("headers")
    headers: Mapping[str, Any] = raw_headers if isinstance(raw_headers, dict) else {}
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


Reason = Literal["flag", "config", "first_configured", "fallback"]

LOCAL_NOTE = "offline echo model"

FALLBACK_NOTICE = (
    f"no model provider is configured: the offline echo model ({LOCAL_PROVIDER_ID}/"
    f"{LOCAL_MODEL_ID}) answers, repeating the prompt. To use a real model, set a "
    "provider key variable (e.g. OPENAI_API_KEY or ANTHROPIC_API_KEY; `svc-engine "
    "providers` lists them all) or a local model server URL "
    "(OLLAMA_URL=http://127.0.0.1:11434/v1)."
)


@attrs.frozen
class DefaultRoute:
    """The provider and model a run uses when nothing names one, and why."""

    provider: str
    model: str | None
    reason: Reason
    """``flag`` (``--provider``), ``config`` (``default_provider`` from a file or the
    environment), ``first_configured`` (selection order) or ``fallback`` (``local``)."""
    ignored: str | None = None
    """A ``default_provider`` that was named but is not configured (so not used)."""

    @property
    def is_fallback(self) -> bool:
        return self.reason == "fallback"

    def describe(self) -> str:
        """One line: ``openai/gpt-5.2 (from config)``."""
        why = {
            "flag": "from --provider",
            "config": "from default_provider",
            "first_configured": "the first configured provider",
            "fallback": "no provider configured",
        }[self.reason]
        route = f"{self.provider}/{self.model}" if self.model else self.provider
        extra = f"; default_provider `{self.ignored}` is not configured" if self.ignored else ""
        return f"{route} ({why}{extra})"

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "provider": self.provider,
            "model": self.model,
            "reason": self.reason,
        }
        if self.ignored:
            wire["ignored"] = self.ignored
        if self.is_fallback:
            wire["notice"] = FALLBACK_NOTICE
        return wire


def configured_provider_ids(settings: Settings) -> list[str]:
    """Configured providers (not ``local``): catalog selection order, then custom ids sorted.

    The same set the registry builds clients for, computed from settings alone.
    """
    present = {
        pid
        for pid, config in settings.providers.items()
        if pid != LOCAL_PROVIDER_ID and endpoint_for(pid, config) is not None
    }
    known = [pid for pid in SELECTION_ORDER if pid in present]
    return known + sorted(pid for pid in present if pid not in BY_ID)


def default_route(settings: Settings) -> DefaultRoute:
    """Which provider and model answer a run that names neither (see :class:`DefaultRoute`)."""
    configured = configured_provider_ids(settings)
    preferred = (settings.default_provider or "").strip()
    ignored = None
    if preferred and (preferred == LOCAL_PROVIDER_ID or preferred in configured):
        from_flag = bool(settings.layer("cli").get("default_provider"))
        return DefaultRoute(
            preferred, _default_model(settings, preferred), "flag" if from_flag else "config"
        )
    if preferred:
        ignored = preferred
    if configured:
        first = configured[0]
        return DefaultRoute(
            first, _default_model(settings, first), "first_configured", ignored=ignored
        )
    return DefaultRoute(LOCAL_PROVIDER_ID, LOCAL_MODEL_ID, "fallback", ignored=ignored)


def _default_model(settings: Settings, provider_id: str) -> str | None:
    # The same precedence as ProviderRegistry.resolve with no model named.
    if provider_id == LOCAL_PROVIDER_ID:
        return LOCAL_MODEL_ID
    config = settings.providers.get(provider_id)
    info = BY_ID.get(provider_id)
    return (
        (config.default_model if config else None)
        or (settings.default_model or "").strip()
        or (info.default_model if info else None)
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

    def default_route(self) -> DefaultRoute:
        """The default in effect and why (see :func:`default_route`)."""
        return default_route(self._settings)

    def is_configured(self, provider_id: str) -> bool:
        return provider_id == LOCAL_PROVIDER_ID or provider_id in self._providers

    def get(self, provider_id: str) -> Provider:
        provider_id = provider_id.strip()
        if provider_id == LOCAL_PROVIDER_ID:
            return self._local
        provider = self._providers.get(provider_id)
        if provider is None:
            from .types import PROVIDER_NOT_CONFIGURED, ProviderError

            raise ProviderError(
                self.not_configured_message(provider_id),
                code=PROVIDER_NOT_CONFIGURED,
                status=400,
                retryable=False,
                provider=provider_id,
            )
        return provider

    def not_configured_message(self, provider_id: str) -> str:
        """Why ``provider_id`` cannot be used, the valid ids and the configured ones."""
        configured = ", ".join([f"{LOCAL_PROVIDER_ID} ({LOCAL_NOTE})", *self.configured_ids()])
        if provider_id in BY_ID or provider_id in self._settings.providers:
            return (
                f"provider `{provider_id}` is not configured: {setup_hint(provider_id)}. "
                f"configured providers: {configured}"
            )
        valid = ", ".join([LOCAL_PROVIDER_ID, *PROVIDER_IDS])
        return (
            f"unknown provider `{provider_id}`. valid ids: {valid} (or a custom id with a "
            f"`url` in the config). configured providers: {configured}"
        )

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
