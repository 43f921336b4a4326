"""Bad input gets a clear 4xx in the standard shape, never a 500 with a traceback."""

from __future__ import annotations

import httpx
import pytest


def assert_error_shape(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code
    assert isinstance(body["error"], str) and body["error"]
    assert body["retryable"] in (True, False)
    assert "Traceback" not in response.text
    return body


async def test_unknown_route_is_a_json_404(client: httpx.AsyncClient) -> None:
    body = assert_error_shape(await client.get("/no/such/route"), 404, "NOT_FOUND")
    assert "/no/such/route" in body["error"]


async def test_wrong_method_is_a_json_405(client: httpx.AsyncClient) -> None:
    assert_error_shape(await client.delete("/global/health"), 405, "METHOD_NOT_ALLOWED")


# httpx abandons its request-body iterator when the server answers early.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_body_over_10_mib_is_413(client: httpx.AsyncClient) -> None:
    big = b"x" * (10 * 1024 * 1024 + 1)
    response = await client.post(
        "/admin/reload-config", content=big, headers={"Content-Type": "application/json"}
    )
    assert_error_shape(response, 413, "PAYLOAD_TOO_LARGE")


async def test_engine_keeps_serving_after_bad_input(client: httpx.AsyncClient) -> None:
    await client.post("/admin/reload-config", content=b"{not json")
    assert (await client.get("/global/health")).status_code == 200
