"""The operator rule (``check_operator_url``) where an operator configures a service it runs:
MCP connector URLs, channel API bases and gateways, model server URLs. A local server is
normal (allowed); a wrong scheme or credentials in the URL is a 400 naming the field."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import svc
from svc.errors import ConfigError
from svc.net import UrlRefused, check_operator_url
from svc.settings import Settings


def assert_refused(response: httpx.Response, field: str, reason: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["code"], body["field"], body["reason"]) == ("URL_NOT_ALLOWED", field, reason)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://mcp.example.com/", "scheme"),
        ("mcp.example.com/mcp", "scheme"),
        ("https://user:pass@mcp.example.com/", "credentials"),
        ("http://token@127.0.0.1/", "credentials"),
        ("http://", "invalid_url"),
    ],
)
def test_the_rule_names_the_field(url: str, reason: str) -> None:
    with pytest.raises(UrlRefused) as refused:
        check_operator_url(url, field="x.url")
    assert refused.value.reason == reason and refused.value.extra["field"] == "x.url"
    assert refused.value.message.startswith("`x.url`")


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/", "http://localhost/", "https://10.0.0.1/"])
def test_local_services_are_allowed(url: str) -> None:
    assert check_operator_url(url) == url


async def test_mcp_connector_urls(client: httpx.AsyncClient) -> None:
    for transport, reason in (
        ("https://u:p@mcp.example.com/mcp", "credentials"),
        ("ws://127.0.0.1:9/mcp", "scheme"),
    ):
        refused = await client.post("/mcp", json={"name": "x", "transport": transport})
        assert_refused(refused, "transport", reason)
    added = await client.post(
        "/mcp", json={"name": "local", "transport": "http://127.0.0.1:9/mcp", "enabled": False}
    )
    assert added.status_code == 200, added.text


async def test_channel_api_bases_and_gateways(client: httpx.AsyncClient) -> None:
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"api_base_url": "https://bot:secret@api.example.com"}, "api_base_url", "credentials"),
        ({"api_base_url": "ftp://api.example.com"}, "api_base_url", "scheme"),
        ({"gateway_url": "https://gateway.example.com"}, "gateway_url", "scheme"),
        ({"gateway_url": "wss://u:p@gateway.example.com"}, "gateway_url", "credentials"),
    ]
    for block, field, reason in cases:
        body = {"bot_token": "123:token-value", **block}
        assert_refused(await client.put("/channels/discord", json=body), field, reason)
    fine = {
        "bot_token": "123:token-value",
        "api_base_url": "http://127.0.0.1:9",
        "gateway_url": "ws://127.0.0.1:9/gateway",
        "enabled": False,
    }
    assert (await client.put("/channels/discord", json=fine)).status_code == 200


@pytest.mark.parametrize(
    ("url", "reason"),
    [("http://user:key@127.0.0.1:11434/v1", "credentials"), ("file:///models", "scheme")],
)
def test_model_server_urls_in_configuration(url: str, reason: str) -> None:
    with pytest.raises(ConfigError) as refused:
        Settings.load({"providers": {"ollama": {"url": url}}}, environ={})
    assert refused.value.extra["field"] == "providers.ollama.url"
    assert (
        Settings.load({"providers": {"ollama": {"url": "http://127.0.0.1:11434/v1"}}}, environ={})
        .providers["ollama"]
        .url
        == "http://127.0.0.1:11434/v1"
    )


async def test_a_reloaded_config_with_a_bad_model_url_is_a_400(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    path = engine.settings.config_path
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"providers": {"openai": {"url": "https://k:s@api.example.com"}}}))
    refused = await client.post("/admin/reload-config")
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "CONFIG_INVALID"
    assert refused.json()["field"] == "providers.openai.url"
