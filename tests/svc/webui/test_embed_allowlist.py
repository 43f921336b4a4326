"""Only GET/HEAD of the shell and its files under the prefix are public, segment-exactly."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

import svc
from svc import Settings
from svc.errors import ConfigError
from svc.http.app import check_web_ui
from svc.webui.embed import normalize_prefix

TOKEN = "tk_0123456789abcdef0123456789abcdef"


async def _status(client: httpx.AsyncClient, method: str, raw_path: str) -> int:
    # The raw target goes on the wire as written (no client-side normalization).
    request = client.build_request(method, "/")
    request.url = request.url.copy_with(raw_path=raw_path.encode())
    return (await client.send(request)).status_code


async def test_shell_and_files_are_public_and_tricky_paths_stay_gated(
    make_settings: Callable[..., Settings],
) -> None:
    async with (
        svc.open_engine(make_settings(api_token=TOKEN, web_ui=True), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        for method, path in [
            ("GET", "/admin"),
            ("HEAD", "/admin"),
            ("GET", "/admin/"),
            ("GET", "/admin/app.js"),
            ("HEAD", "/admin/app.css"),
            ("GET", "/admin/vendor/htm-preact-3.1.1.js"),
        ]:
            assert await _status(client, method, path) == 200, (method, path)
        for method, path in [
            ("GET", "/administrator"),
            ("GET", "/admin%2fapi"),
            ("GET", "/admin%2Fapp.js"),
            ("GET", "/admin/%2e%2e/session"),
            ("GET", "/admin/../session"),
            ("GET", "/admin//app.js"),
            ("GET", "/admin/missing.js"),
            ("GET", "/admin/reload-config"),
            ("POST", "/admin"),
            ("POST", "/admin/reload-config"),
            ("GET", "/session"),
        ]:
            assert await _status(client, method, path) == 401, (method, path)
        shell = await client.get("/admin")
        assert '<base href="/admin/">' in shell.text
        assert "default-src 'none'" in shell.headers["content-security-policy"]


async def test_web_ui_off_serves_nothing_publicly(make_settings: Callable[..., Settings]) -> None:
    async with (
        svc.open_engine(make_settings(api_token=TOKEN), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        assert (await client.get("/admin")).status_code == 401
        headers = {"X-Agent-Token": TOKEN}
        assert (await client.get("/admin", headers=headers)).status_code == 404


async def test_custom_prefix_serves_the_application_there(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(api_token=TOKEN, web_ui=True, web_ui_prefix="/ops/console/")
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        assert (await client.get("/ops/console")).status_code == 200
        assert (await client.get("/ops/console/app.js")).status_code == 200
        assert (await client.get("/admin")).status_code == 401


@pytest.mark.parametrize(
    "prefix", ["/session", "/global", "/api", "/memory", "/mcp/catalog", "/event"]
)
def test_prefix_overlapping_an_api_route_is_refused_at_start(
    make_settings: Callable[..., Settings], prefix: str
) -> None:
    with pytest.raises(ConfigError, match="overlaps the API route"):
        check_web_ui(make_settings(web_ui=True, web_ui_prefix=prefix))


@pytest.mark.parametrize("prefix", ["/", "", "/admin%2fapi", "/a/../b", "/a/./b", "/a b", "/a?x"])
def test_prefix_that_is_not_a_plain_path_is_refused(prefix: str) -> None:
    with pytest.raises(ConfigError):
        normalize_prefix(prefix)


def test_prefix_is_normalized() -> None:
    assert normalize_prefix("admin/") == "/admin"
    assert normalize_prefix("/ops/console") == "/ops/console"


def test_default_prefix_is_accepted_beside_post_only_admin_routes(
    make_settings: Callable[..., Settings],
) -> None:
    # The rule: an overlap is an API route answering GET or HEAD at or under the prefix
    # (the page is only ever GET/HEAD). `POST /admin/reload-config` is not one; but a prefix
    # whose own paths are an API route's, whatever its methods, is.
    check_web_ui(make_settings(web_ui=True, web_ui_prefix="/admin"))
    check_web_ui(make_settings(web_ui=True, web_ui_prefix="/admin/reload-config/ui"))
    with pytest.raises(ConfigError, match="overlaps the API route"):
        check_web_ui(make_settings(web_ui=True, web_ui_prefix="/admin/reload-config"))


async def test_api_routes_under_the_prefix_stay_gated_and_never_get_the_shell(
    make_settings: Callable[..., Settings],
) -> None:
    async with (
        svc.open_engine(make_settings(api_token=TOKEN, web_ui=True), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        for method, path in [
            ("GET", "/admin/reload-config"),
            ("HEAD", "/admin/reload-config"),
            ("POST", "/admin/reload-config"),
            ("GET", "/admin/reload-config/"),
            ("GET", "/administrator"),
            ("GET", "/admin%2fapi"),
            ("GET", "/admin%2Freload-config"),
            ("GET", "/admin/.."),
            ("GET", "/admin/../admin/reload-config"),
            ("GET", "/admin/%2e%2e/global/health"),
        ]:
            assert await _status(client, method, path) == 401, (method, path)
        headers = {"X-Agent-Token": TOKEN}
        # With the token, GET is not served the shell: the route answers POST only.
        got = await client.get("/admin/reload-config", headers=headers)
        assert got.status_code == 405
        assert "<html" not in got.text.lower()
        posted = await client.post("/admin/reload-config", headers=headers)
        assert posted.status_code == 200, posted.text
        # The shell itself with a query string is still the public shell.
        assert (await client.get("/admin", params={"x": "1"})).status_code == 200
