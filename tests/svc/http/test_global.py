from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

import svc


async def test_health_reports_ready(client: httpx.AsyncClient) -> None:
    body = (await client.get("/global/health")).json()
    assert body["healthy"] is True and body["ready"] is True
    assert body["version"] == svc.__version__


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings], workspace: Path) -> svc.Settings:
    (workspace / ".svc").mkdir()
    (workspace / ".svc" / "config.json").write_text(
        json.dumps(
            {
                "default_provider": "ollama",
                "providers": {
                    "ollama": {
                        "url": "http://127.0.0.1:11434/v1",
                        "default_model": "llama3.1:8b",
                        "headers": {"X-Trace": "abc"},
                    }
                },
            }
        )
    )
    return make_settings(env={"OPENROUTER_API_KEY": "sk-or-very-secret-value"})


async def test_config_providers_redacts_every_secret(client: httpx.AsyncClient) -> None:
    response = await client.get("/config/providers")
    assert response.status_code == 200
    body = response.json()
    assert body["default"] == "ollama"
    assert body["providers"]["openrouter"]["api_key"] == "[REDACTED]"
    assert body["providers"]["ollama"]["default_model"] == "llama3.1:8b"
    assert body["providers"]["ollama"]["headers"] == "[REDACTED]"
    assert "sk-or-very-secret-value" not in response.text


async def test_reload_config_rereads_files_from_disk(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    config = workspace / ".svc" / "config.json"
    config.write_text(json.dumps({"default_provider": "openrouter"}))
    assert (await client.post("/admin/reload-config")).json() == {"ok": True}
    assert engine.settings.default_provider == "openrouter"
    assert (await client.get("/config/providers")).json()["default"] == "openrouter"


async def test_reload_with_a_broken_file_keeps_the_running_settings(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    (workspace / ".svc" / "config.json").write_text("{broken")
    response = await client.post("/admin/reload-config")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "CONFIG_INVALID"
    assert "config.json" in body["error"] and "line 1" in body["error"]
    assert engine.settings.default_provider == "ollama"
