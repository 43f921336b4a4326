"""Chat behaviour through the Telegram adapter: commands, questions, memory, reloads."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import svc
from svc.channels import channels_of
from svc.events import EventFilter, EventStream
from tests.fakes.telegram_server import FakeTelegram, open_fake_telegram
from tests.fakes.turns import FakeToolCall, Turn

from .conftest import configure, wait_connected

TOKEN = "777:chat-features-token"


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with open_fake_telegram(TOKEN) as server:
        yield server


async def _setup(
    client: httpx.AsyncClient, engine: svc.Engine, tg: FakeTelegram, **extra: Any
) -> None:
    block: dict[str, Any] = {
        "bot_token": TOKEN,
        "api_base_url": tg.url,
        "allowed_users": ["42"],
        "stream_edit_interval_ms": 0,
        "poll_timeout_s": 5,
    }
    block.update(extra)
    await configure(client, "telegram", **block)
    await wait_connected(engine, "telegram")


async def test_slash_commands_by_tier(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg, allowed_users=["42"], user_tiers={"50": "read"})
    tg.push_message(chat_id=7, user_id=42, text="/help")
    await tg.changes.until(lambda: any("/new" in t for t in tg.texts(7)))
    tg.push_message(chat_id=7, user_id=42, text="/status@svc_test_bot")
    await tg.changes.until(lambda: any("No session yet" in t for t in tg.texts(7)))
    tg.push_message(chat_id=7, user_id=42, text="first question")
    await tg.changes.until(lambda: "first question" in tg.texts(7))
    first = await channels_of(engine).repo.session_of("telegram", "7")
    tg.push_message(chat_id=7, user_id=42, text="/new")
    await tg.changes.until(lambda: "Started a fresh session." in tg.texts(7))
    second = await channels_of(engine).repo.session_of("telegram", "7")
    assert first and second and first != second
    tg.push_message(chat_id=7, user_id=42, text="/cancel")
    await tg.changes.until(lambda: "Nothing is running here." in tg.texts(7))
    # A read-tier user may ask for the status but not prompt or start sessions.
    tg.push_message(chat_id=8, user_id=50, text="/new")
    await tg.changes.until(lambda: any("more rights" in t for t in tg.texts(8)))
    tg.push_message(chat_id=8, user_id=50, text="do something")
    await tg.changes.until(lambda: any("not prompt" in t for t in tg.texts(8)))
    assert await channels_of(engine).repo.session_of("telegram", "8") is None


async def test_a_question_from_the_run_is_answered_with_a_button(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram, fake_model: Any
) -> None:
    await _setup(client, engine, tg)
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall(
                "question",
                {"questions": [{"question": "Which database?", "options": ["Postgres", "SQLite"]}]},
            )
        ),
        Turn.reply("using SQLite"),
    )
    tg.push_message(chat_id=7, user_id=42, text="set it up")
    await tg.changes.until(lambda: tg.keyboard_messages(7))
    asked = tg.keyboard_messages(7)[0]
    assert asked.payload["text"] == "Which database?"
    sqlite = asked.payload["reply_markup"]["inline_keyboard"][0][1]
    assert sqlite["text"] == "SQLite"
    message_id = next(mid for (_, mid), text in tg.messages.items() if text == "Which database?")
    tg.push_callback(chat_id=7, user_id=42, message_id=message_id, data=sqlite["callback_data"])
    await tg.changes.until(lambda: "using SQLite" in tg.texts(7))
    tool_result = json.dumps(fake_model.requests[-1].body["messages"])
    assert "SQLite" in tool_result
    # A button of another conversation's question is refused.
    tg.push_callback(chat_id=9, user_id=42, message_id=message_id, data=sqlite["callback_data"])
    await tg.changes.until(lambda: len(tg.of("answerCallbackQuery")) == 2)
    assert "not for this conversation" in tg.of("answerCallbackQuery")[1].payload["text"]


async def test_completed_exchanges_are_remembered_and_recalled_per_conversation(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram, fake_model: Any
) -> None:
    await _setup(client, engine, tg)
    fake_model.enqueue(Turn.reply("The launch code word is pelican."))
    tg.push_message(chat_id=7, user_id=42, text="what is the launch code word")
    await tg.changes.until(lambda: "The launch code word is pelican." in tg.texts(7))
    await _remembered(engine, 1)  # written by the memory's recorder once the run finished
    listed = (await client.get("/memory", params={"channel_tag": "telegram"})).json()
    contents = [item["content"] for item in listed["items"]]
    assert any("pelican" in c and "launch code" in c for c in contents)
    # Stored once: one exchange record in every tier, global and tagged with its conversation.
    exchanges = (await client.get("/memory", params={"kind": "exchange", "limit": 50})).json()
    assert exchanges["total"] == 1, exchanges["items"]
    (record,) = exchanges["items"]
    assert record["tier"] == "global"
    assert {"telegram", "telegram:7"} <= set(record["tags"])
    tg.push_message(chat_id=7, user_id=42, text="/new")
    await tg.changes.until(lambda: "Started a fresh session." in tg.texts(7))
    tg.push_message(chat_id=7, user_id=42, text="remind me of the launch code word")
    await tg.changes.until(lambda: "remind me of the launch code word" in tg.texts(7))
    system = json.dumps(fake_model.requests[-1].body["messages"][0])
    assert "pelican" in system
    # Another conversation does not see it.
    tg.push_message(chat_id=8, user_id=42, text="launch code word please")
    await tg.changes.until(lambda: "launch code word please" in tg.texts(8))
    assert "pelican" not in json.dumps(fake_model.requests[-1].body["messages"][0])


async def _remembered(engine: svc.Engine, count: int) -> None:
    """Wait until ``count`` exchanges were stored (the recorder's ``memory.updated``)."""
    seen = 0
    with EventStream(
        engine.events, EventFilter(types=frozenset({"memory.updated"})), after_seq=0
    ) as stream:
        while seen < count:
            for event in await stream.receive():
                if event.properties.get("action") == "exchange":
                    seen += int(event.properties.get("count", 0))


async def test_reload_config_restarts_only_changed_listeners(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg)
    service = channels_of(engine)
    first = service.listeners["telegram"]
    assert (await client.post("/admin/reload-config")).status_code == 200
    await service.apply()
    assert service.listeners["telegram"] is first  # unchanged: not restarted
    path = engine.settings.config_path
    assert path is not None
    data = json.loads(path.read_text())
    data["channels"]["telegram"]["allowed_users"] = ["42", "43"]
    path.write_text(json.dumps(data))
    assert (await client.post("/admin/reload-config")).status_code == 200
    await service.apply()
    second = service.listeners["telegram"]
    assert second is not first
    await wait_connected(engine, "telegram")
    status = (await client.get("/channels/status")).json()["telegram"]
    assert status["meta"]["listener_start_count"] == 2
