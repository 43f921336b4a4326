from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

import svc
from svc.errors import ConfigError
from svc.http.auth import presented_token, token_matches

TOKEN = "tk_0123456789abcdef0123456789abcdef"


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings]) -> svc.Settings:
    return make_settings(api_token=TOKEN)


async def test_health_is_public_even_with_a_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/global/health")
    assert response.status_code == 200
    assert response.json()["healthy"] is True
    assert (await client.head("/global/health")).status_code == 200


async def test_missing_token_is_401_auth_required(client: httpx.AsyncClient) -> None:
    response = await client.get("/config/providers")
    assert response.status_code == 401
    assert response.json() == {
        "error": "Unauthorized: missing or invalid API token",
        "code": "AUTH_REQUIRED",
        "retryable": False,
    }


async def test_unknown_routes_need_the_token_too(client: httpx.AsyncClient) -> None:
    assert (await client.get("/nowhere")).status_code == 401


@pytest.mark.parametrize(
    "headers",
    [{"Authorization": f"Bearer {TOKEN}"}, {"X-Agent-Token": TOKEN}, {"X-Svc-Token": TOKEN}],
    ids=["bearer", "x-agent-token", "x-svc-token"],
)
async def test_each_token_header_is_accepted(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    assert (await client.get("/config/providers", headers=headers)).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [{"Authorization": "Bearer nope"}, {"X-Agent-Token": "nope"}, {"Authorization": TOKEN}],
    ids=["wrong-bearer", "wrong-agent-token", "no-bearer-scheme"],
)
async def test_wrong_tokens_are_401(client: httpx.AsyncClient, headers: dict[str, str]) -> None:
    assert (await client.get("/config/providers", headers=headers)).status_code == 401


def test_first_present_header_is_the_one_checked() -> None:
    headers = {"x-agent-token": "wrong", "authorization": f"Bearer {TOKEN}"}
    assert not token_matches(presented_token(headers), TOKEN)


async def test_refuses_a_non_loopback_bind_without_a_token(
    make_settings: Callable[..., svc.Settings],
) -> None:
    open_settings = make_settings(host="0.0.0.0")
    with pytest.raises(ConfigError, match="without an API token"):
        async with svc.open_engine(open_settings, serve_http=True):
            pass
