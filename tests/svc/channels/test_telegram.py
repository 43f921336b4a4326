"""Telegram end to end: the Bot API fake, a real engine, the fake model."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from svc import Settings
from svc.events import EventFilter
from svc.logs import JsonFormatter
from tests.fakes.telegram_server import FakeTelegram, open_fake_telegram
from tests.fakes.turns import FakeToolCall, Turn

from .conftest import configure, wait_connected

TOKEN = "123456:telegram-secret-token-value"


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with open_fake_telegram(TOKEN) as server:
        yield server


async def _setup(
    client: httpx.AsyncClient, engine: svc.Engine, tg: FakeTelegram, **extra: object
) -> None:
    block: dict[str, object] = {
        "bot_token": TOKEN,
        "api_base_url": tg.url,
        "allowed_users": ["42"],
        "stream_edit_interval_ms": 0,
        "poll_timeout_s": 5,
    }
    block.update(extra)
    await configure(client, "telegram", **block)
    await wait_connected(engine, "telegram")


async def test_message_in_streamed_answer_out_through_edits(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg)
    tg.push_message(chat_id=7, user_id=42, text="hello there from the chat")
    await tg.changes.until(lambda: tg.texts(7) == ["hello there from the chat"])
    sends = [c for c in tg.of("sendMessage") if c.payload["chat_id"] == "7"]
    edits = [c for c in tg.of("editMessageText") if c.payload["chat_id"] == "7"]
    assert sends[0].payload["text"] == "…"  # the placeholder the answer replaces
    assert len(edits) >= 1
    assert edits[-1].payload["text"] == "hello there from the chat"
    status = (await client.get("/channels/status")).json()
    assert set(status) == {"telegram", "discord", "slack"}
    assert status["telegram"]["connected"] is True
    assert status["telegram"]["active_sessions"] == 1
    assert status["discord"] == {
        "enabled": False,
        "connected": False,
        "last_error": None,
        "active_sessions": 0,
        "meta": {
            "state": "stopped",
            "last_error_code": None,
            "last_reconnect_at": None,
            "listener_start_count": 0,
            "prompts_in_progress": 0,
        },
    }


async def test_approval_button_in_chat_reaches_the_waiting_run(
    engine: svc.Engine,
    client: httpx.AsyncClient,
    tg: FakeTelegram,
    fake_model: Any,
    workspace: Path,
) -> None:
    await _setup(client, engine, tg, allowed_users=["42", "43"], approvers=["42"])
    fake_model.enqueue(
        Turn.calls(FakeToolCall("write", {"path": "out.txt", "content": "42"})),
        Turn.reply("written"),
    )
    tg.push_message(chat_id=7, user_id=42, text="write the file")
    await tg.changes.until(lambda: tg.keyboard_messages(7))
    keyboard = tg.keyboard_messages(7)[0]
    assert "write" in keyboard.payload["text"]
    buttons = keyboard.payload["reply_markup"]["inline_keyboard"][0]
    once = next(b for b in buttons if b["text"] == "Allow once")
    approval_id = next(
        mid for (chat, mid), text in tg.messages.items() if text == keyboard.payload["text"]
    )
    # A user who may prompt but not approve cannot answer it.
    tg.push_callback(chat_id=7, user_id=43, message_id=approval_id, data=once["callback_data"])
    await tg.changes.until(lambda: tg.of("answerCallbackQuery"))
    assert "not allowed" in tg.of("answerCallbackQuery")[0].payload["text"]
    assert not (workspace / "out.txt").exists()

    tg.push_callback(chat_id=7, user_id=42, message_id=approval_id, data=once["callback_data"])
    await tg.changes.until(lambda: "written" in tg.texts(7))
    assert (workspace / "out.txt").read_text() == "42"
    decided = [c.payload["text"] for c in tg.of("answerCallbackQuery")]
    assert decided[-1] == "Allow once: write"


async def test_restart_continues_from_the_stored_offset(
    settings: Settings, tg: FakeTelegram
) -> None:
    async with svc.open_engine(settings, serve_http=True) as engine:
        async with httpx.AsyncClient(base_url=engine.url or "") as client:
            await _setup(client, engine, tg)
        tg.push_message(chat_id=7, user_id=42, text="first message")
        await tg.changes.until(lambda: tg.texts(7) == ["first message"])
    tg.push_message(chat_id=7, user_id=42, text="second message")
    async with svc.open_engine(settings.reload(), serve_http=True) as engine:
        await wait_connected(engine, "telegram")
        await tg.changes.until(lambda: "second message" in tg.texts(7))
    # The first update was answered once; the restarted listener asked from offset 2.
    assert tg.texts(7) == ["first message", "second message"]
    polls = [c.payload for c in tg.of("getUpdates")]
    assert any(p.get("offset") == 2 for p in polls)


async def test_a_disallowed_user_is_ignored_and_changes_nothing(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg)
    tg.push_message(chat_id=9, user_id=666, text="let me in")
    tg.push_message(chat_id=7, user_id=42, text="allowed one")
    await tg.changes.until(lambda: tg.texts(7) == ["allowed one"])
    assert tg.texts(9) == []
    sessions = (await client.get("/session")).json()
    assert len(sessions) == 1


async def test_empty_allowed_users_means_nobody(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg, allowed_users=[])
    tg.push_message(chat_id=7, user_id=42, text="anyone there")
    await tg.changes.until(lambda: len(tg.of("getUpdates")) >= 2)
    assert tg.texts(7) == []


async def test_the_eleventh_prompt_is_rate_limited_in_chat_and_on_prompt_sync(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg)
    for index in range(10):
        tg.push_message(chat_id=7, user_id=42, text=f"prompt {index}")
    await tg.changes.until(lambda: sum(t.startswith("prompt") for t in tg.texts(7)) == 10)
    tg.push_message(chat_id=7, user_id=42, text="one too many")
    await tg.changes.until(lambda: any("please wait" in t for t in tg.texts(7)))
    assert "one too many" not in tg.texts(7)

    sid = (await client.get("/session")).json()[0]["id"]
    limited = await client.post(f"/session/{sid}/prompt_sync", json={"parts": []})
    assert limited.status_code == 429
    assert limited.json()["code"] == "RATE_LIMITED"
    assert int(limited.headers["Retry-After"]) >= 1


async def test_prompt_sync_on_a_channel_session_counts_against_its_user(
    engine: svc.Engine, client: httpx.AsyncClient
) -> None:
    created = await client.post(
        "/session",
        json={
            "title": "channel limited",
            "sourceKind": "channel",
            "sourceMetadata": {"channel": "telegram", "user_id": "42"},
        },
    )
    sid = created.json()["id"]
    for _ in range(10):
        ok = await client.post(
            f"/session/{sid}/prompt_sync", json={"parts": [{"type": "text", "text": "hi"}]}
        )
        assert ok.status_code == 200
    limited = await client.post(f"/session/{sid}/prompt_sync", json={"parts": []})
    assert limited.status_code == 429 and "Retry-After" in limited.headers


async def test_an_upload_is_stored_listed_and_given_to_the_run(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram, fake_model: Any
) -> None:
    await _setup(client, engine, tg)
    tg.push_file("doc1", b"quarterly numbers")
    tg.push_message(
        chat_id=7,
        user_id=42,
        caption="summarize this",
        document={"file_id": "doc1", "file_name": "../../report?.txt", "mime_type": "text/plain"},
    )
    await tg.changes.until(lambda: any("summarize" in t for t in tg.texts(7)))
    listing = (await client.get("/global/storage/files", params={"path": "channel_uploads"})).json()
    paths = [f["path"] for f in listing["files"]]
    assert paths == ["channel_uploads/telegram/7/report_.txt"]
    stored = engine.state_dir / paths[0]
    assert stored.read_bytes() == b"quarterly numbers"
    parts = (
        await client.get(f"/session/{(await client.get('/session')).json()[0]['id']}/message")
    ).json()[0]["parts"]
    assert any(p["type"] == "file" and p["filename"] == "report_.txt" for p in parts)


async def test_an_upload_over_the_cap_is_refused(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg, max_upload_bytes=4)
    tg.push_file("big", b"too large a file")
    tg.push_message(chat_id=7, user_id=42, caption="take it", document={"file_id": "big"})
    await tg.changes.until(lambda: any("larger" in t for t in tg.texts(7)))
    listing = await client.get("/global/storage/files", params={"path": "channel_uploads"})
    assert listing.status_code == 404 or listing.json()["count"] == 0


async def test_tokens_never_appear_in_responses_events_or_logs(
    engine: svc.Engine,
    client: httpx.AsyncClient,
    tg: FakeTelegram,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    await _setup(client, engine, tg)
    tg.push_message(chat_id=7, user_id=42, text="hi")
    await tg.changes.until(lambda: tg.texts(7) == ["hi"])
    bodies = []
    for path in ("/channels/config", "/channels/status", "/config/providers"):
        bodies.append((await client.get(path)).text)
    bodies.append((await client.post("/channels/telegram/verify")).text)
    config = (await client.get("/channels/config")).json()["telegram"]
    assert config["has_token"] is True and config["token_masked"].startswith("****")
    events = await engine.events.replay(EventFilter(), after_seq=0, limit=10_000)
    bodies.extend(e.data.decode() for e in events)
    formatter = JsonFormatter()
    bodies.extend(formatter.format(r) for r in caplog.records)
    for body in bodies:
        assert TOKEN not in body
        assert "telegram-secret-token-value" not in body


async def test_put_keeps_the_stored_token_and_refuses_bad_shapes(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg)
    kept = await client.put(
        "/channels/telegram", json={"bot_token": "", "api_base_url": tg.url, "allowed_users": ["*"]}
    )
    assert kept.status_code == 200
    assert engine.settings.channels["telegram"]["bot_token"] == TOKEN
    bad = await client.put("/channels/telegram", json={"allowed_users": "everyone"})
    assert bad.status_code == 400 and bad.json()["field"] == "allowed_users"
    assert (await client.put("/channels/irc", json={})).status_code == 404
    no_token = await client.put("/channels/discord", json={"allowed_users": ["1"]})
    assert no_token.status_code == 400
    prefs = await client.put(
        "/channels/telegram/tool-preferences", json={"enabled_tools": ["read"]}
    )
    assert prefs.json()["enabled_tools"] == ["read"]
    got = await client.get("/channels/telegram/tool-preferences")
    assert got.json()["enabled_tools"] == ["read"]
    deleted = await client.delete("/channels/telegram")
    assert deleted.json() == {"ok": True}
    status = (await client.get("/channels/status")).json()["telegram"]
    assert status["enabled"] is False and status["connected"] is False


async def test_verify_checks_the_token_with_get_me(
    engine: svc.Engine, client: httpx.AsyncClient, tg: FakeTelegram
) -> None:
    await _setup(client, engine, tg)
    verified = (await client.post("/channels/telegram/verify")).json()
    assert verified["ok"] is True and verified["identity"]["username"] == "svc_test_bot"
    await client.put(
        "/channels/telegram", json={"bot_token": "999:wrong-token-value", "api_base_url": tg.url}
    )
    refused = (await client.post("/channels/telegram/verify")).json()
    assert refused["ok"] is False and refused["code"] == "CHANNEL_AUTH_FAILED"
