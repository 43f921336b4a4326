"""A web page the user visits cannot drive or read a local engine.

Cross-site requests (a form, a ``fetch``) carry the page's ``Origin``; DNS
rebinding names the attacker's host in ``Host``; a form can only post
``text/plain`` or form data. Ordinary clients (no ``Origin``, a loopback
``Host``) are unaffected.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

import httpx
import pytest

import svc

TOKEN = "tk_security_0123456789abcdef01234"
EVIL = "https://evil.example"


def port_of(engine: svc.Engine) -> int:
    return urlsplit(engine.url or "").port or 0


async def session_count(client: httpx.AsyncClient) -> int:
    return len((await client.get("/session")).json())


async def test_an_ordinary_client_still_works(
    engine: svc.Engine, client: httpx.AsyncClient
) -> None:
    headers = {"Host": f"127.0.0.1:{port_of(engine)}"}
    created = await client.post("/session", json={"title": "plain"}, headers=headers)
    assert created.status_code == 200, created.text
    assert "access-control-allow-origin" not in created.headers
    assert (await client.get("/session", headers=headers)).status_code == 200


async def test_a_cross_site_text_plain_post_creates_nothing(client: httpx.AsyncClient) -> None:
    before = await session_count(client)
    response = await client.post(
        "/session",
        content=b'{"title": "pwned"}',
        headers={"Content-Type": "text/plain;charset=UTF-8", "Origin": EVIL},
    )
    assert response.status_code == 403
    assert response.json()["code"] == "ORIGIN_NOT_ALLOWED"
    assert "access-control-allow-origin" not in response.headers
    assert await session_count(client) == before


@pytest.mark.parametrize("origin", [EVIL, "null", "http://127.0.0.1:1", "file://"])
async def test_foreign_origins_are_refused_even_for_reads(
    client: httpx.AsyncClient, origin: str
) -> None:
    response = await client.get("/session", headers={"Origin": origin})
    assert response.status_code == 403
    assert response.json()["code"] == "ORIGIN_NOT_ALLOWED"


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]"])
async def test_the_engines_own_pages_are_answered(
    engine: svc.Engine, client: httpx.AsyncClient, name: str
) -> None:
    origin = f"http://{name}:{port_of(engine)}"
    response = await client.post("/session", json={}, headers={"Origin": origin})
    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == origin
    assert "Origin" in response.headers["vary"]


@pytest.mark.parametrize(
    "host", ["rebind.attacker.example", "rebind.attacker.example:39731", "10.0.0.8"]
)
async def test_a_rebound_host_name_is_refused(client: httpx.AsyncClient, host: str) -> None:
    response = await client.get("/session", headers={"Host": host})
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "HOST_NOT_ALLOWED"
    assert body["retryable"] is False


@pytest.mark.parametrize("host", ["localhost", "127.0.0.5:1234", "[::1]:80", "LOCALHOST."])
async def test_loopback_host_names_are_answered(client: httpx.AsyncClient, host: str) -> None:
    assert (await client.get("/session", headers={"Host": host})).status_code == 200


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
async def test_a_json_route_refuses_a_body_of_another_type(
    client: httpx.AsyncClient, content_type: str
) -> None:
    before = await session_count(client)
    response = await client.post(
        "/session", content=b'{"title": "x"}', headers={"Content-Type": content_type}
    )
    assert response.status_code == 415
    body = response.json()
    assert body["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert body["field"] == "Content-Type"
    assert await session_count(client) == before


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "application/merge-patch+json"],
)
async def test_json_media_types_are_read(client: httpx.AsyncClient, content_type: str) -> None:
    response = await client.post(
        "/session", content=b'{"title": "typed"}', headers={"Content-Type": content_type}
    )
    assert response.status_code == 200, response.text
    assert response.json()["title"] == "typed"


async def test_bodyless_posts_need_no_content_type(client: httpx.AsyncClient) -> None:
    session = (await client.post("/session", content=b"")).json()
    assert (await client.post(f"/session/{session['id']}/abort")).status_code == 200
    assert (await client.post("/admin/reload-config")).status_code == 200


async def test_a_preflight_from_a_foreign_origin_is_refused(client: httpx.AsyncClient) -> None:
    response = await client.options(
        "/session",
        headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"},
    )
    assert response.status_code == 403
    assert "access-control-allow-origin" not in response.headers


class TestAllowedNamesAndOrigins:
    APP = "https://app.example"

    @pytest.fixture
    def settings(self, make_settings: Callable[..., svc.Settings]) -> svc.Settings:
        return make_settings(
            env={"SVC_ALLOWED_HOSTS": "box.lan, engine.internal", "SVC_ALLOWED_ORIGINS": self.APP}
        )

    async def test_listed_host_names_are_answered(self, client: httpx.AsyncClient) -> None:
        for host in ("box.lan", "engine.internal:39731"):
            assert (await client.get("/session", headers={"Host": host})).status_code == 200
        refused = await client.get("/session", headers={"Host": "other.lan"})
        assert refused.json()["code"] == "HOST_NOT_ALLOWED"

    async def test_a_listed_origin_gets_its_preflight_and_its_answers(
        self, client: httpx.AsyncClient
    ) -> None:
        preflight = await client.options(
            "/session",
            headers={
                "Origin": self.APP,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, x-agent-token",
            },
        )
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == self.APP
        assert "POST" in preflight.headers["access-control-allow-methods"]
        assert preflight.headers["access-control-allow-headers"] == "content-type, x-agent-token"
        assert "*" not in preflight.headers.get("access-control-allow-origin", "")

        created = await client.post("/session", json={}, headers={"Origin": self.APP})
        assert created.status_code == 200
        assert created.headers["access-control-allow-origin"] == self.APP


class TestWithAToken:
    @pytest.fixture
    def settings(self, make_settings: Callable[..., svc.Settings]) -> svc.Settings:
        return make_settings(api_token=TOKEN)

    async def test_any_host_is_answered_since_the_token_guards_it(
        self, client: httpx.AsyncClient
    ) -> None:
        headers = {"Host": "engine.example:39731", "X-Agent-Token": TOKEN}
        assert (await client.get("/session", headers=headers)).status_code == 200
        rebound = await client.get("/session", headers={"Host": "rebind.attacker.example"})
        assert rebound.status_code == 401

    async def test_foreign_origins_are_still_refused(self, client: httpx.AsyncClient) -> None:
        headers = {"Origin": EVIL, "X-Agent-Token": TOKEN}
        response = await client.get("/session", headers=headers)
        assert response.json()["code"] == "ORIGIN_NOT_ALLOWED"

    async def test_same_origin_pages_by_any_name_are_answered(
        self, engine: svc.Engine, client: httpx.AsyncClient
    ) -> None:
        host = f"engine.example:{port_of(engine)}"
        headers = {"Host": host, "Origin": f"http://{host}", "X-Agent-Token": TOKEN}
        assert (await client.get("/session", headers=headers)).status_code == 200

    async def test_a_preflight_needs_no_token(
        self, engine: svc.Engine, client: httpx.AsyncClient
    ) -> None:
        origin = f"http://localhost:{port_of(engine)}"
        preflight = await client.options(
            "/session", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
        )
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == origin
