"""The compact memory of completed exchanges: written after each run, found by later runs."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import trio

import svc
from svc.memory import MemoryScope, clip, compact_exchange
from svc.memory.exchanges import CURSOR_KEY
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import text_prompt, wait_for_event


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def run(
    client: httpx.AsyncClient, engine: svc.Engine, sid: str, text: str
) -> svc.events.Event:
    started = await client.post(
        f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt(text)
    )
    assert started.status_code == 202, started.text
    finished = await wait_for_event(engine, "session.run.finished", run_id=started.json()["runID"])
    # The recorder follows the event log; wait until it has handled this run.
    await engine.memory.exchanges.wait_for(finished.seq)
    return finished


async def exchanges(engine: svc.Engine) -> list[svc.memory.MemoryRecord]:
    items, _ = await engine.memory.page(MemoryScope.everything(), kinds=["exchange"])
    return items


def test_compact_exchanges_collapse_whitespace_and_clip_at_words() -> None:
    assert (
        compact_exchange("  what   is\nthe  TTL? ", "Five minutes.")
        == "User: what is the TTL?\nAssistant: Five minutes."
    )
    clipped = clip("alpha beta gamma delta " * 20, 50)
    assert len(clipped) <= 51 and clipped.endswith("…") and not clipped[:-1].endswith(" ")


async def test_a_completed_run_leaves_a_session_record(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(Turn.reply("The staging database is called pelican."))
    sid = (await client.post("/session", json={})).json()["id"]
    finished = await run(client, engine, sid, "What is the staging database called?")
    [record] = await exchanges(engine)
    assert record.tier == "session" and record.session_id == sid and record.project_id is None
    assert record.content == (
        "User: What is the staging database called?\n"
        "Assistant: The staging database is called pelican."
    )
    assert (
        record.run_id == finished.run_id
        and record.tags == ("exchange",)
        and record.source_type == "exchange"
    )
    assert record.metadata["source"] == "session"
    hits = await engine.memory.find(
        "pelican", MemoryScope.for_context(session_id=sid, project_id=None)
    )
    assert [h.record.id for h in hits] == [record.id]


async def test_a_project_session_also_leaves_a_project_copy(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(Turn.reply("Deploys go out on Tuesdays."))
    sid = (await client.post("/session", json={"project_id": "apollo"})).json()["id"]
    await run(client, engine, sid, "When do deploys go out?")
    records = await exchanges(engine)
    assert sorted(r.tier for r in records) == ["project", "session"]
    project = next(r for r in records if r.tier == "project")
    assert project.project_id == "apollo" and project.session_id is None


async def test_a_later_run_in_another_session_finds_it_with_memory_search(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
) -> None:
    fake_model.enqueue(Turn.reply("Noted: the on-call phone is 555-0199."))
    first = (await client.post("/session", json={"project_id": "apollo"})).json()["id"]
    await run(client, engine, first, "Remember the on-call phone number is 555-0199.")
    fake_model.enqueue(
        Turn.calls(FakeToolCall("memory_search", {"query": "on-call phone"}, id="m1")),
        Turn.reply("It is 555-0199."),
    )
    second = (await client.post("/session", json={"project_id": "apollo"})).json()["id"]
    await run(client, engine, second, "What's the on-call phone?")
    tool_message = next(m for m in fake_model.requests[-1].body["messages"] if m["role"] == "tool")
    assert "555-0199" in tool_message["content"] and "[project/exchange]" in tool_message["content"]
    # A session of another project does not see it.
    fake_model.enqueue(
        Turn.calls(FakeToolCall("memory_search", {"query": "on-call phone"}, id="m2")),
        Turn.reply("I don't know."),
    )
    other = (await client.post("/session", json={"project_id": "zeus"})).json()["id"]
    await run(client, engine, other, "What's the on-call phone?")
    tool_message = next(m for m in fake_model.requests[-1].body["messages"] if m["role"] == "tool")
    assert "555-0199" not in tool_message["content"]


async def test_failed_runs_are_not_remembered(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.enqueue(Turn.failure(400, message="bad request"))
    sid = (await client.post("/session", json={})).json()["id"]
    finished = await run(client, engine, sid, "this fails")
    assert finished.properties["status"] == "error"
    assert await exchanges(engine) == []


async def test_deleting_a_session_forgets_its_session_memory_but_not_the_project_copy(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
) -> None:
    fake_model.enqueue(Turn.reply("Blue."))
    sid = (await client.post("/session", json={"project_id": "apollo"})).json()["id"]
    await run(client, engine, sid, "Favourite colour?")
    await client.post("/memory/put", json={"text": "session note", "session_id": sid})
    assert (await client.delete(f"/session/{sid}")).json()["deleted"] is True
    deleted = await wait_for_event(engine, "session.deleted", session_id=sid)
    await engine.memory.exchanges.wait_for(deleted.seq)
    items, _ = await engine.memory.page(MemoryScope.everything())
    assert [(r.tier, r.kind) for r in items] == [("project", "exchange")]


async def test_reprocessing_after_a_lost_cursor_stores_nothing_twice(
    make_settings: Any,
    fake_model: Any,
) -> None:
    settings = make_settings(
        default_provider="openai",
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )
    fake_model.enqueue(Turn.reply("Forty-two."))
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        sid = (await client.post("/session", json={})).json()["id"]
        finished = await run(client, engine, sid, "The answer?")
        assert len(await exchanges(engine)) == 1
        # As if the engine had crashed before committing its cursor.
        await engine.memory.store.state.put(CURSOR_KEY, 0, now_ms=engine.clock.now_ms())
    async with svc.open_engine(settings) as engine:
        with trio.fail_after(30):
            await engine.memory.exchanges.wait_for(finished.seq)
        assert len(await exchanges(engine)) == 1


async def test_exchange_memory_can_be_switched_off(make_settings: Any, fake_model: Any) -> None:
    settings = make_settings(
        env={"SVC_MEMORY_EXCHANGES": "0"},
        default_provider="openai",
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )
    fake_model.enqueue(Turn.reply("Sure."))
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        sid = (await client.post("/session", json={})).json()["id"]
        await run(client, engine, sid, "Hi")
        assert await exchanges(engine) == []


async def test_long_exchanges_are_clipped_to_the_configured_size(
    make_settings: Any, fake_model: Any
) -> None:
    settings = make_settings(
        env={"SVC_MEMORY_EXCHANGE_CHARS": "100"},
        default_provider="openai",
        providers={
            "openai": {
                "url": fake_model.url,
                "api_key": "sk-test-key-0001",
                "default_model": "fake-model",
            }
        },
    )
    fake_model.enqueue(Turn.reply("word " * 400))
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        sid = (await client.post("/session", json={})).json()["id"]
        await run(client, engine, sid, "question " * 100)
        [record] = await exchanges(engine)
    user, assistant = record.content.split("\n")
    assert len(user) <= len("User: ") + 101 and user.endswith("…")
    assert len(assistant) <= len("Assistant: ") + 101 and assistant.endswith("…")
