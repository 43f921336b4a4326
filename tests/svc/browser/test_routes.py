"""GET /browser/status, POST /browser/install, POST /browser/smoke-test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
import trio

import svc
from svc.settings import Settings
from tests.fakes.browser_pages import Pages


@pytest.fixture
async def served_browser(browser_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with (
        svc.open_engine(browser_settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=120.0) as client,
    ):
        yield client


async def test_status_of_a_default_engine_is_disabled(client: httpx.AsyncClient) -> None:
    response = await client.get("/browser/status")
    assert response.status_code == 200
    body = response.json()
    assert body["enabled"] is False and body["runnable"] is False
    assert body["blocking_issues"][0]["code"] == "disabled_by_config"


async def test_install_places_the_sidecar_of_the_engines_version(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    response = await client.post("/browser/install")
    assert response.status_code == 200, response.text
    body = response.json()
    installed = Path(body["installed_path"])
    assert installed == engine.state_dir / "binaries" / "svc-browser"
    assert body["version"] == svc.__version__ and body["downloaded_bytes"] == 0
    assert body["status"]["enabled"] is False
    version = await trio.run_process([str(installed), "--version"], capture_stdout=True)
    assert version.stdout.decode().strip() == f"svc-browser {svc.__version__}"
    again = await client.post("/browser/install")
    assert again.status_code == 200 and again.json()["installed_path"] == str(installed)


async def test_install_refuses_a_foreign_sidecar_of_another_version(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    foreign = tmp_path / "svc-browser"
    foreign.write_text("#!/bin/sh\necho svc-browser 0.0.1\n")
    foreign.chmod(0o755)
    settings = make_settings(browser={"sidecar_path": str(foreign)})
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        response = await client.post("/browser/install")
    assert response.status_code == 500
    body = response.json()
    assert body["ok"] is False and body["code"] == "browser_install_failed"
    assert "0.0.1" in body["error"]


async def test_host_effects_need_a_local_tenant_caller(client: httpx.AsyncClient) -> None:
    for path in ("/browser/install", "/browser/smoke-test"):
        response = await client.post(path, headers={"x-svc-org-id": "acme"})
        assert response.status_code == 403, path


async def test_smoke_test_on_a_page_of_the_allowlist(
    served_browser: httpx.AsyncClient, pages: Pages
) -> None:
    response = await served_browser.post("/browser/smoke-test", json={"url": pages.url + "/"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True and body["closed"] is True
    assert body["title"] == "Home page" and body["load_state"] == "complete"
    assert body["element_count"] >= 2 and "Welcome" in body["excerpt"]


async def test_smoke_test_obeys_the_allowlist(served_browser: httpx.AsyncClient) -> None:
    response = await served_browser.post("/browser/smoke-test")
    assert response.status_code == 500
    body = response.json()
    assert body["code"] == "browser_smoke_test_failed" and body["ok"] is False
    assert "example.com" in body["error"]


async def test_smoke_test_when_not_runnable(client: httpx.AsyncClient) -> None:
    response = await client.post("/browser/smoke-test", json={})
    assert response.status_code == 500
    assert response.json()["error"].startswith("browser_not_runnable")
