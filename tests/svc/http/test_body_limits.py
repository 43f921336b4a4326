"""Request body limits per route: a small default, larger limits for prompts and imports."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

import svc
from svc.http.body_limits import ROUTE_BODY, describe
from svc.http.policy import ROUTE_POLICY
from tests.helpers import text_prompt

DEFAULT, PROMPT, IMPORT = 4096, 64 * 1024, 32 * 1024


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings]) -> svc.Settings:
    return make_settings(
        max_body_bytes=DEFAULT, max_prompt_body_bytes=PROMPT, max_import_body_bytes=IMPORT
    )


@pytest.fixture
async def one(engine: svc.Engine) -> AsyncIterator[httpx.AsyncClient]:
    """A client on ONE connection: every request after a 413 shows the connection still works."""
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=engine.url or "", timeout=15, limits=limits) as c:
        yield c


def assert_too_large(response: httpx.Response, limit: int) -> None:
    assert response.status_code == 413, response.text
    body = response.json()
    assert body["code"] == "PAYLOAD_TOO_LARGE" and body["retryable"] is False
    assert body["limitBytes"] == limit and describe(limit) in body["error"]


def test_every_listed_route_exists() -> None:
    assert set(ROUTE_BODY) <= set(ROUTE_POLICY)


async def test_an_ordinary_route_has_the_default_limit(one: httpx.AsyncClient) -> None:
    assert_too_large(await one.post("/session", json={"title": "x" * DEFAULT}), DEFAULT)
    assert (await one.post("/session", json={"title": "ok"})).status_code == 200


async def test_a_prompt_may_be_larger_up_to_its_own_limit(one: httpx.AsyncClient) -> None:
    sid = (await one.post("/session", json={})).json()["id"]
    url = f"/session/{sid}/message"
    fits = await one.post(url, json=text_prompt("x" * (PROMPT // 2)))
    assert fits.status_code != 413, fits.text
    assert_too_large(await one.post(url, json=text_prompt("x" * PROMPT)), PROMPT)
    assert (await one.get(f"/session/{sid}")).status_code == 200


async def test_an_import_has_its_own_limit(one: httpx.AsyncClient) -> None:
    body: dict[str, Any] = {"path": "x" * (IMPORT // 2)}
    fits = await one.post("/memory/import", json=body)
    assert fits.status_code != 413, fits.text
    assert_too_large(await one.post("/memory/import", json={"path": "x" * IMPORT}), IMPORT)


async def test_a_chunked_body_past_the_limit_is_413_and_the_connection_carries_on(
    one: httpx.AsyncClient,
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"title": "'
        for _ in range(8):
            yield b"x" * 1024
        yield b'"}'

    for _ in range(3):
        response = await one.post(
            "/session", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert "content-length" not in response.request.headers
        assert_too_large(response, DEFAULT)
        assert "connection" not in response.headers
        assert (await one.get("/global/health")).status_code == 200


async def test_limits_come_from_the_environment(
    make_settings: Callable[..., svc.Settings],
) -> None:
    settings = make_settings(
        env={"SVC_MAX_PROMPT_BODY_BYTES": "2048000", "SVC_MAX_IMPORT_BODY_BYTES": "4096000"}
    )
    assert (settings.max_prompt_body_bytes, settings.max_import_body_bytes) == (2048000, 4096000)
    assert svc.Settings().max_body_bytes == 1024 * 1024
