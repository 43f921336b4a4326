"""Provider administration as clients call it: the catalog, defaults, API keys and their status.

The key given to ``PUT /auth/{id}`` is used by the next run without a restart and never
comes back in any reply, event or log line.
"""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc

KEY = "sk-live-provider-key-7f3a9c"


async def prompt(client: httpx.AsyncClient, sid: str, text: str) -> dict[str, Any]:
    response = await client.post(
        f"/session/{sid}/prompt_sync",
        json={
            "parts": [{"type": "text", "text": text}],
            "model": {"providerID": "openai", "modelID": "fake-model"},
        },
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_catalog_lists_providers_models_connected_and_default(
    client: httpx.AsyncClient,
) -> None:
    catalog = (await client.get("/provider")).json()
    ids = [p["id"] for p in catalog["all"]]
    assert "openai" in ids and "anthropic" in ids and "local" in ids
    openai = next(p for p in catalog["all"] if p["id"] == "openai")
    assert openai["name"] == "OpenAI" and openai["models"]
    assert all(isinstance(m["name"], str) for m in openai["models"].values())
    assert catalog["connected"] == ["local"]
    assert catalog["default"] == "local"


async def test_set_defaults_merges_into_the_project_config(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    response = await client.patch(
        "/config",
        json={"default_provider": "local", "providers": {"openai": {"default_model": "gpt-x"}}},
    )
    assert response.status_code == 200, response.text
    assert response.json()["effective"]["default_provider"] == "local"
    written = json.loads((workspace / ".svc" / "config.json").read_text())
    assert written["providers"]["openai"]["default_model"] == "gpt-x"
    config = (await client.get("/config/providers")).json()
    assert config["default"] == "local"
    assert config["providers"]["openai"]["default_model"] == "gpt-x"

    refused = await client.patch("/config", json={"providers": {"openai": {"api_key": "x"}}})
    assert refused.status_code == 400
    assert refused.json()["code"] == "CONFIG_SECRET_REJECTED"
    assert refused.json()["field"] == "providers.openai.api_key"


async def test_an_api_key_is_used_by_the_next_run_and_never_echoed(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    workspace: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    await client.patch("/config", json={"providers": {"openai": {"url": fake_model.url}}})
    status = (await client.get("/provider/auth")).json()
    assert status["openai"]["hasKey"] is False

    put = await client.put("/auth/openai", json={"apiKey": KEY})
    assert put.status_code == 200, put.text
    assert put.json()["ok"] is True and put.json()["backend"] == "file"
    assert KEY not in put.text

    sid = (await client.post("/session", json={"title": "keyed"})).json()["id"]
    reply = await prompt(client, sid, "hello with a key")
    assert reply["status"] == "completed"
    assert fake_model.requests[-1].headers["authorization"] == f"Bearer {KEY}"

    status = await client.get("/provider/auth")
    assert status.json()["openai"] == {
        "id": "openai",
        "hasKey": True,
        "has_key": True,
        "source": "project",
        "configured": True,
        "needsKey": True,
    }
    texts = [
        status.text,
        (await client.get("/config/providers")).text,
        (await client.get("/provider")).text,
        json.dumps([e.to_record() for e in await engine.events.replay(limit=100_000)]),
        caplog.text,
    ]
    assert all(KEY not in text for text in texts)
    config = workspace / ".svc" / "config.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600

    removed = (await client.delete("/auth/openai")).json()
    assert removed["hasKey"] is False
    assert "api_key" not in json.loads(config.read_text())["providers"]["openai"]


async def test_an_empty_key_or_unknown_provider_is_a_400(client: httpx.AsyncClient) -> None:
    empty = await client.put("/auth/openai", json={"apiKey": " "})
    assert empty.status_code == 400 and empty.json()["field"] == "apiKey"
    unknown = await client.put("/auth/nowhere", json={"apiKey": "sk-123456"})
    assert unknown.status_code == 400 and unknown.json()["field"] == "id"
