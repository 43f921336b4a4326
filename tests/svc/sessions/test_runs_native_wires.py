"""The agent loop over the native Anthropic Messages and Cohere v2 chat wires."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from tests.fakes import FakeToolCall, FakeUsage, Turn, open_fake_anthropic, open_fake_cohere
from tests.helpers import run_events, text_prompt, wait_for_event


@pytest.fixture(params=["anthropic", "cohere"])
async def native(request: pytest.FixtureRequest) -> AsyncIterator[tuple[str, Any]]:
    opener = open_fake_anthropic if request.param == "anthropic" else open_fake_cohere
    async with opener() as server:
        yield request.param, server


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings], native: tuple[str, Any]) -> svc.Settings:
    provider, server = native
    return make_settings(
        default_provider=provider,
        providers={
            provider: {
                "url": server.url,
                "api_key": "native-key-1234",
                "default_model": "native-model",
            }
        },
    )


async def test_tool_use_round_trip(
    client: httpx.AsyncClient, engine: svc.Engine, native: tuple[str, Any], workspace: Path
) -> None:
    provider, server = native
    (workspace / "n.txt").write_text("native content")
    server.enqueue(
        Turn.calls(
            FakeToolCall("read", {"path": "n.txt"}, id="tu_1"),
            text="Checking.",
            usage=FakeUsage(input_tokens=20, output_tokens=5),
        ),
        Turn.reply("It says native content."),
    )
    sid = (await client.post("/session", json={})).json()["id"]
    run_id = (
        await client.post(
            f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt("read n.txt")
        )
    ).json()["runID"]
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "completed"
    usage = [e.properties for e in await run_events(engine, run_id) if e.type == "provider.usage"]
    assert usage[0]["providerID"] == provider and usage[0]["usageSource"] == "provider"
    assert usage[0]["promptTokens"] == 20
    second = server.requests[1].body["messages"]
    if provider == "anthropic":
        assert server.requests[0].headers["x-api-key"] == "native-key-1234"
        results = [
            b
            for m in second
            if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
        assert results[0]["tool_use_id"] == "tu_1" and "native content" in str(
            results[0]["content"]
        )
    else:
        assert server.requests[0].headers["authorization"] == "Bearer native-key-1234"
        tool = next(m for m in second if m["role"] == "tool")
        assert tool["tool_call_id"] == "tu_1" and "native content" in str(tool["content"])
    reply = (await client.get(f"/session/{sid}/message")).json()[1]
    assert [p["type"] for p in reply["parts"]] == ["text", "tool", "text"]
    assert reply["parts"][-1]["text"] == "It says native content."
