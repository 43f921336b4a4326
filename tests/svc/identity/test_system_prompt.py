"""Identity reaches the model.

The system prompt carries the name, the preset and the agent's override.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from tests.fakes.turns import Turn
from tests.helpers import text_prompt, wait_for_event


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def system_message(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, **body: Any
) -> str:
    fake_model.enqueue(Turn.reply("ok"))
    sid = (await client.post("/session", json={})).json()["id"]
    started = await client.post(
        f"/session/{sid}/prompt_async",
        params={"return": "run"},
        json={**text_prompt("hello"), **body},
    )
    assert started.status_code == 202, started.text
    await wait_for_event(engine, "session.run.finished", run_id=started.json()["runID"])
    messages = fake_model.requests[-1].body["messages"]
    assert messages[0]["role"] == "system"
    return messages[0]["content"]


async def test_the_default_voice_adds_no_personality(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    prompt = await system_message(client, engine, fake_model)
    assert prompt.startswith("You are svc, an agent")
    assert "Be concise" not in prompt and "mentor" not in prompt


async def test_a_patched_identity_changes_the_next_run(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    response = await client.patch(
        "/config/identity",
        json={
            "bot": {"canonical_name": "Ada"},
            "personality": {
                "default": {"preset": "concise", "custom_instructions": "Use metric units."},
                "per_agent": {"reviewer": {"preset": "critical"}},
            },
        },
    )
    assert response.status_code == 200
    prompt = await system_message(client, engine, fake_model)
    assert prompt.startswith("You are Ada, an agent")
    assert "Be concise: answer directly" in prompt and "Use metric units." in prompt
    reviewer = await system_message(client, engine, fake_model, agent="reviewer")
    assert "Be a critical reviewer" in reviewer and "Be concise" not in reviewer
    assert "Use metric units." in reviewer


async def test_agent_persona_from_the_environment(
    make_settings: Any, fake_model: Any, workspace: Path
) -> None:
    (workspace / ".svc").mkdir()
    (workspace / ".svc" / "config.json").write_text(
        json.dumps({"identity": {"personality": {"default": {"preset": "mentor"}}}})
    )
    settings = make_settings(
        env={"SVC_BOT_NAME": "Max", "AGENT_PERSONA": "Always end with a haiku."},
        default_provider="openai",
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        prompt = await system_message(client, engine, fake_model)
    assert prompt.startswith("You are Max, an agent")
    assert "Act as a mentor" in prompt and prompt.endswith("Always end with a haiku.")
