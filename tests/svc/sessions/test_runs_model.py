"""Runs against a real (scripted) OpenAI-compatible server: the full agent loop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

import svc
from tests.fakes.turns import FakeToolCall, FakeUsage, Turn
from tests.helpers import run_events, text_prompt, types, wait_for_event


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def start(client: httpx.AsyncClient, text: str, **body: Any) -> tuple[str, str]:
    sid = (await client.post("/session", json={})).json()["id"]
    response = await client.post(
        f"/session/{sid}/prompt_async", params={"return": "run"}, json={**text_prompt(text), **body}
    )
    assert response.status_code == 202, response.text
    return sid, response.json()["runID"]


async def test_streamed_reply_with_provider_usage(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(
        Turn.reply("Hello from the model", usage=FakeUsage(input_tokens=11, output_tokens=4))
    )
    sid, run_id = await start(client, "hi")
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "completed"
    events = await run_events(engine, run_id)
    usage = next(e for e in events if e.type == "provider.usage").properties
    assert (usage["promptTokens"], usage["completionTokens"], usage["usageSource"]) == (
        11,
        4,
        "provider",
    )
    assert usage["providerID"] == "openai" and usage["modelID"] == "fake-model"
    request = fake_model.requests[0].body
    assert request["model"] == "fake-model" and request["stream"] is True
    assert request["messages"][0]["role"] == "system"
    assert request["messages"][-1] == {"role": "user", "content": "hi"}
    reply = (await client.get(f"/session/{sid}/message")).json()[1]
    assert reply["parts"][0]["text"] == "Hello from the model"


async def test_native_tool_calls_loop_with_tool_messages(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    (workspace / "data.txt").write_text("the answer is 42")
    fake_model.enqueue(
        Turn.calls(FakeToolCall("read", {"path": "data.txt"}, id="call_1"), text="Let me look."),
        Turn.reply("It says 42."),
    )
    sid, run_id = await start(client, "what does data.txt say?")
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    second = fake_model.requests[1].body["messages"]
    assistant = next(m for m in second if m["role"] == "assistant")
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"path": "data.txt"}
    tool_message = next(m for m in second if m["role"] == "tool")
    assert (
        tool_message["tool_call_id"] == "call_1" and "the answer is 42" in tool_message["content"]
    )
    offered = {t["function"]["name"] for t in fake_model.requests[0].body["tools"]}
    assert {"read", "write", "bash"} <= offered
    parts = (await client.get(f"/session/{sid}/message")).json()[1]["parts"]
    assert [p["type"] for p in parts] == ["text", "tool", "text"]
    assert parts[1]["state"] == "completed"

    # The next run replays the transcript with proper tool messages.
    await client.post(f"/session/{sid}/prompt_sync", json=text_prompt("thanks"))
    replay = fake_model.requests[2].body["messages"]
    assert [m["role"] for m in replay[1:]] == ["user", "assistant", "tool", "assistant", "user"]


async def test_allowlist_hides_tools_and_refuses_calls(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("bash", {"command": "echo hacked > x"}, id="c1")), Turn.reply("ok")
    )
    _sid, run_id = await start(client, "go", toolAllowlist=["read", "glob"])
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    offered = {t["function"]["name"] for t in fake_model.requests[0].body["tools"]}
    assert offered == {"read", "glob"}
    denied = [e for e in await run_events(engine, run_id) if e.type == "tool.denied"]
    assert denied and denied[0].properties["tool"] == "bash"
    assert not (workspace / "x").exists()


async def test_provider_down_ends_the_run_with_a_clear_code(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(*[Turn.failure(503, "overloaded")] * 3)
    sid, run_id = await start(client, "hello?")
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "error"
    assert finished.properties["error"]["code"] == "PROVIDER_SERVER_ERROR"
    assert finished.properties["failureCategory"] == "provider"
    messages = (await client.get(f"/session/{sid}/message")).json()
    assert messages[0]["parts"][0]["text"] == "hello?"


async def test_auth_failure_code(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(Turn.failure(401, "bad key"))
    _sid, run_id = await start(client, "x")
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["error"]["code"] == "AUTHENTICATION_ERROR"
    assert finished.properties["failureCategory"] == "authentication"
    assert "sk-test-key-0001" not in json.dumps(finished.properties)


async def test_dropped_stream_keeps_the_partial_transcript(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(Turn.reply("one two three four five six", drop_after=3))
    sid, run_id = await start(client, "count")
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["error"]["code"] == "PROVIDER_STREAM_INTERRUPTED"
    reply = (await client.get(f"/session/{sid}/message")).json()[1]
    assert reply["parts"][0]["text"].startswith("one two")


async def test_cancel_mid_stream(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.enqueue(Turn.reply("partial then more words", gate=gate, gate_after=1))
    sid, run_id = await start(client, "long answer")
    await wait_for_event(
        engine,
        "message.part.updated",
        run_id=run_id,
        where=lambda e: e.properties.get("delta") == "partial ",
    )
    assert (await client.post(f"/session/{sid}/cancel")).json()["cancelled"] is True
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    gate.set()
    assert finished.properties["status"] == "cancelled"
    assert types(await run_events(engine, run_id)).count("session.run.finished") == 1
    reply = (await client.get(f"/session/{sid}/message")).json()[1]
    assert reply["parts"][0]["text"] == "partial "  # what streamed before the cancel is kept


async def test_run_timeout_is_reported_as_timeout(make_settings: Any, fake_model: Any) -> None:
    settings = make_settings(
        default_provider="openai",
        run_timeout_ms=200,
        providers={
            "openai": {"url": fake_model.url, "api_key": "k-1234", "default_model": "fake-model"}
        },
    )
    gate = trio.Event()
    fake_model.enqueue(Turn.reply("never finishes", gate=gate, gate_after=1))
    async with svc.open_engine(settings) as engine:
        session = await engine.sessions.create(svc.sessions.CreateSession())
        started = await engine.sessions.prompt(
            session.id, svc.sessions.RunRequest(parts=({"type": "text", "text": "slow"},))
        )
        run = await engine.sessions.wait(started, timeout=30)
        gate.set()
    assert run.status == "timeout" and run.failure_category == "timeout"


async def test_images_reach_vision_providers(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Path
) -> None:
    (workspace / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    parts = [
        {"type": "text", "text": "describe"},
        {"type": "file", "mime": "image/png", "filename": "pic.png", "url": "pic.png"},
        {"type": "file", "mime": "image/jpeg", "url": "https://example.com/cat.jpg"},
    ]
    sid = (await client.post("/session", json={})).json()["id"]
    await client.post(f"/session/{sid}/prompt_sync", json={"parts": parts})
    content = fake_model.requests[0].body["messages"][-1]["content"]
    urls = [c["image_url"]["url"] for c in content if c["type"] == "image_url"]
    assert urls[0].startswith("data:image/png;base64,") and urls[1] == "https://example.com/cat.jpg"
