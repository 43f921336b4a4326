"""ProviderRegistry: which providers exist and how a run's model route is chosen."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from svc import Settings
from svc.logs import scrub
from svc.providers import (
    AnthropicProvider,
    CohereProvider,
    LocalEchoProvider,
    OpenAICompatProvider,
    ProviderRegistry,
)
from svc.providers.types import (
    MODEL_SELECTION_REQUIRED,
    PROVIDER_NOT_CONFIGURED,
    ChatMessage,
    ChatRequest,
    ProviderError,
)
from tests.fakes import FakeOpenAI, Turn

MakeSettings = Callable[..., Settings]


def registry(settings: Settings, http: httpx.AsyncClient) -> ProviderRegistry:
    return ProviderRegistry(settings, http, retry_base_delay=0.001)


async def test_nothing_configured_means_local_echo(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    reg = registry(make_settings(), http)
    assert reg.configured_ids() == [] and reg.default_provider_id() == "local"
    provider, model = reg.resolve()
    assert isinstance(provider, LocalEchoProvider) and model == "echo-1"
    assert reg.get("local") is provider
    with pytest.raises(ProviderError) as info:
        reg.get("openai")
    error = info.value
    assert error.message == (
        "provider `openai` is not configured: set OPENAI_API_KEY (or "
        "`providers.openai.api_key`). configured providers: local (offline echo model)"
    )
    assert (error.code, error.status, error.retryable) == (PROVIDER_NOT_CONFIGURED, 400, False)


async def test_configured_ids_follow_selection_order_then_sorted_custom_ids(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    settings = make_settings(
        env={
            "ANTHROPIC_API_KEY": "sk-ant-aaaa",
            "OPENAI_API_KEY": "sk-oai-bbbb",
            "OLLAMA_URL": "http://127.0.0.1:1/v1",
        },
        providers={
            "zeta": {"url": "http://zeta.local/v1"},
            "alpha": {"url": "http://alpha.local/v1"},
            "cohere": {"api_key": "co-cccc"},
        },
    )
    reg = registry(settings, http)
    assert reg.configured_ids() == ["ollama", "openai", "anthropic", "cohere", "alpha", "zeta"]
    assert reg.default_provider_id() == "ollama"
    with pytest.raises(
        ProviderError,
        match=r"^provider `groq` is not configured: set GROQ_API_KEY .*\. configured providers: "
        r"local \(offline echo model\), ollama, openai, anthropic, cohere, alpha, zeta$",
    ):
        reg.get("groq")


async def test_an_unknown_id_names_the_valid_ones(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    reg = registry(make_settings(), http)
    with pytest.raises(ProviderError) as info:
        reg.get("nope")
    assert info.value.message.startswith(
        "unknown provider `nope`. valid ids: local, openai, openrouter, anthropic, ollama, "
    )
    assert info.value.message.endswith("configured providers: local (offline echo model)")


@pytest.mark.parametrize(
    ("overrides", "env", "expected"),
    [
        ({}, {}, ("local", "echo-1", "fallback", None)),
        ({}, {"GROQ_API_KEY": "gsk-1"}, ("groq", "llama-3.1-8b-instant", "first_configured", None)),
        (
            {},
            {"GROQ_API_KEY": "gsk-1", "OPENAI_API_KEY": "sk-1", "SVC_DEFAULT_PROVIDER": "openai"},
            ("openai", "gpt-5.2", "config", None),
        ),
        (
            {"provider": "openai", "model": "gpt-x"},
            {"OPENAI_API_KEY": "sk-1"},
            ("openai", "gpt-x", "flag", None),
        ),
        ({}, {"SVC_DEFAULT_PROVIDER": "groq"}, ("local", "echo-1", "fallback", "groq")),
    ],
)
def test_default_route_says_why(
    overrides: dict[str, Any], env: dict[str, str], expected: tuple[Any, ...], tmp_path: Any
) -> None:
    from svc.providers.registry import FALLBACK_NOTICE, default_route

    settings = Settings.load(
        {"global_config": tmp_path / "none.json", "workspace": tmp_path, **overrides}, environ=env
    )
    route = default_route(settings)
    assert (route.provider, route.model, route.reason, route.ignored) == expected
    wire = route.to_wire()
    assert (wire.get("notice") == FALLBACK_NOTICE) is (route.reason == "fallback")


async def test_wires_and_capabilities(make_settings: MakeSettings, http: httpx.AsyncClient) -> None:
    settings = make_settings(
        providers={
            "anthropic": {"api_key": "sk-ant-dddd"},
            "cohere": {"api_key": "co-eeee"},
            "groq": {"api_key": "gsk-ffff"},
            "mine": {"url": "http://mine.local/v1", "vision": True},
            "plain": {"url": "http://plain.local/v1"},
        }
    )
    reg = registry(settings, http)
    assert isinstance(reg.get("anthropic"), AnthropicProvider)
    assert isinstance(reg.get("cohere"), CohereProvider)
    for pid in ("groq", "mine", "plain"):
        assert isinstance(reg.get(pid), OpenAICompatProvider)
    assert reg.get("anthropic").supports_vision and not reg.get("groq").supports_vision
    assert reg.get("mine").supports_vision and not reg.get("plain").supports_vision
    # Keys are scrubbed from logs from now on.
    assert scrub("key=gsk-ffff") == "key=[REDACTED]"


async def test_default_provider_setting_and_its_fallback(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    both = {"openai": {"api_key": "sk-1111"}, "mistral": {"api_key": "ms-2222"}}
    assert (
        registry(
            make_settings(providers=both, default_provider="mistral"), http
        ).default_provider_id()
        == "mistral"
    )
    # A default that is not configured falls back to the first configured provider.
    assert (
        registry(make_settings(providers=both, default_provider="groq"), http).default_provider_id()
        == "openai"
    )
    assert registry(make_settings(default_provider="groq"), http).default_provider_id() == "local"


async def test_url_and_default_model_override_the_catalog(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    settings = make_settings(
        providers={
            "openai": {
                "api_key": "sk-3333",
                "url": "http://proxy.local/v1",
                "default_model": "gpt-4o-mini",
            },
            "groq": {"api_key": "gsk-4444"},
        }
    )
    reg = registry(settings, http)
    openai = reg.get("openai")
    assert isinstance(openai, OpenAICompatProvider)
    assert (
        openai.url == "http://proxy.local/v1/chat/completions"
        and openai.default_model == "gpt-4o-mini"
    )
    groq = reg.get("groq")
    assert isinstance(groq, OpenAICompatProvider)
    assert groq.url == "https://api.groq.com/openai/v1/chat/completions"
    assert reg.resolve("groq") == (groq, "llama-3.1-8b-instant")
    assert reg.resolve("groq", "llama-3.3-70b") == (groq, "llama-3.3-70b")
    assert reg.resolve() == (openai, "gpt-4o-mini")


async def test_settings_default_model_applies_to_the_default_provider(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    providers: dict[str, Any] = {"openai": {"api_key": "sk-5555"}, "groq": {"api_key": "gsk-6666"}}
    reg = registry(make_settings(providers=providers, default_model="gpt-4.1"), http)
    assert reg.resolve()[1] == "gpt-4.1"  # beats the catalog default
    assert reg.resolve("openai")[1] == "gpt-4.1"  # openai is the default provider
    assert reg.resolve("groq")[1] == "llama-3.1-8b-instant"  # not the default provider
    assert reg.resolve(None, "o3")[1] == "o3"
    providers["openai"]["default_model"] = "gpt-4o"
    reg = registry(make_settings(providers=providers, default_model="gpt-4.1"), http)
    assert reg.resolve()[1] == "gpt-4o"  # the provider's own default is more specific


async def test_custom_provider_without_a_model_requires_one(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    reg = registry(make_settings(providers={"lab": {"url": "http://lab.local/v1"}}), http)
    with pytest.raises(ProviderError) as info:
        reg.resolve("lab")
    error = info.value
    assert (error.code, error.status, error.retryable) == (MODEL_SELECTION_REQUIRED, 400, False)
    assert "pass a model" in error.message and "`providers.lab.default_model`" in error.message
    assert reg.resolve("lab", "qwen2.5")[1] == "qwen2.5"
    # As the default provider, settings.default_model fills the gap.
    reg = registry(
        make_settings(providers={"lab": {"url": "http://lab.local/v1"}}, default_model="qwen2.5"),
        http,
    )
    assert reg.resolve()[1] == "qwen2.5"


async def test_custom_provider_without_url_is_not_configured(
    make_settings: MakeSettings, http: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    reg = registry(make_settings(providers={"nourl": {"default_model": "m"}}), http)
    assert reg.configured_ids() == []
    assert any(getattr(r, "provider", None) == "nourl" for r in caplog.records)
    with pytest.raises(ProviderError, match="provider `nourl` is not configured"):
        reg.get("nourl")


async def test_local_resolves_with_echo_model(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    reg = registry(
        make_settings(providers={"openai": {"api_key": "sk-7777"}}, default_model="gpt-4.1"), http
    )
    assert reg.resolve("local")[1] == "echo-1"


async def test_rebuild_replaces_providers(
    make_settings: MakeSettings, http: httpx.AsyncClient
) -> None:
    reg = registry(make_settings(providers={"openai": {"api_key": "sk-8888"}}), http)
    assert reg.configured_ids() == ["openai"]
    reg.rebuild(
        make_settings(providers={"cohere": {"api_key": "co-9999"}}, default_provider="cohere")
    )
    assert reg.configured_ids() == ["cohere"] and reg.default_provider_id() == "cohere"
    with pytest.raises(ProviderError, match=r"configured providers: local .*, cohere$"):
        reg.get("openai")


async def test_registry_providers_talk_to_their_servers(
    make_settings: MakeSettings, http: httpx.AsyncClient, openai_server: FakeOpenAI
) -> None:
    settings = make_settings(
        protocol_title="Acme Agent",
        default_provider="openrouter",
        providers={
            "openrouter": {"api_key": "sk-or-1234", "url": openai_server.url},
            "azure": {
                "api_key": "az-5678",
                "url": openai_server.root_url + "/openai/deployments/d1",
                "api_version": "2025-01-01",
            },
        },
    )
    reg = registry(settings, http)
    openai_server.enqueue(Turn.reply("routed"))
    provider, model = reg.resolve()
    completion = await provider.chat(
        ChatRequest(model=model, messages=(ChatMessage("user", "hi"),))
    )
    assert completion.text == "routed"
    azure, azure_model = reg.resolve("azure")
    await azure.chat(ChatRequest(model=azure_model, messages=(ChatMessage("user", "hi"),)))
    router_req, azure_req = openai_server.requests
    assert router_req.body["model"] == "openai/gpt-4o-mini"
    assert router_req.headers["x-title"] == "Acme Agent"
    assert router_req.headers["authorization"] == "Bearer sk-or-1234"
    assert azure_req.path == "/openai/deployments/d1/chat/completions"
    assert azure_req.query == "api-version=2025-01-01" and azure_req.headers["api-key"] == "az-5678"
