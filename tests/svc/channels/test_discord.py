"""Discord end to end: the gateway fake (websocket) and its REST API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import svc
from svc.channels import channels_of
from tests.fakes.discord_gateway import FakeDiscord, open_fake_discord
from tests.fakes.turns import FakeToolCall, Turn

from .conftest import configure, wait_connected

TOKEN = "discord-bot-token-secret-value"


@pytest.fixture
async def dc() -> AsyncIterator[FakeDiscord]:
    async with open_fake_discord(TOKEN, heartbeat_ms=50) as server:
        yield server


async def _setup(
    client: httpx.AsyncClient, engine: svc.Engine, dc: FakeDiscord, **extra: Any
) -> None:
    block: dict[str, Any] = {
        "bot_token": TOKEN,
        "api_base_url": dc.url,
        "gateway_url": dc.gateway_url,
        "allowed_users": ["42"],
        "stream_edit_interval_ms": 0,
    }
    block.update(extra)
    await configure(client, "discord", **block)
    await wait_connected(engine, "discord")


async def test_message_streams_an_answer_and_heartbeats_carry_the_sequence(
    engine: svc.Engine, client: httpx.AsyncClient, dc: FakeDiscord
) -> None:
    await _setup(client, engine, dc)
    identify = dc.ops(2)[0]["d"]
    assert identify["token"] == TOKEN and identify["intents"] & (1 << 15)
    dc.message(channel_id="C1", user_id="42", content="hello discord")
    await dc.changes.until(lambda: dc.texts("C1") == ["hello discord"])
    assert dc.of("POST")[0].payload["content"] == "…"
    assert dc.of("PATCH")[-1].payload["content"] == "hello discord"
    await dc.changes.until(lambda: any(f["d"] == dc.seq for f in dc.ops(1)))


async def test_group_messages_need_a_mention_by_default(
    engine: svc.Engine, client: httpx.AsyncClient, dc: FakeDiscord
) -> None:
    await _setup(client, engine, dc)
    dc.message(channel_id="G1", user_id="42", content="chatter", guild_id="guild")
    dc.message(
        channel_id="G1", user_id="42", content="<@B1> answer me", guild_id="guild", mention_bot=True
    )
    await dc.changes.until(lambda: dc.texts("G1") == ["answer me"])


async def test_gateway_drop_resumes_without_losing_or_duplicating(
    engine: svc.Engine, client: httpx.AsyncClient, dc: FakeDiscord
) -> None:
    await _setup(client, engine, dc)
    dc.message(channel_id="C1", user_id="42", content="before the drop")
    await dc.changes.until(lambda: dc.texts("C1") == ["before the drop"])
    # The client acknowledged up to here; on resume the server replays one
    # event it had already delivered as well (at-least-once delivery).
    dc.replay_overlap = 1
    dc.drop()
    dc.message(channel_id="C1", user_id="42", content="while disconnected")
    await dc.changes.until(lambda: dc.ops(6))
    resume = dc.ops(6)[0]["d"]
    assert resume["session_id"] == "gateway-session-1" and resume["token"] == TOKEN
    await dc.changes.until(lambda: "while disconnected" in dc.texts("C1"))
    assert dc.texts("C1") == ["before the drop", "while disconnected"]
    assert len(dc.ops(2)) == 1  # resumed, never identified again
    listener = channels_of(engine).listeners["discord"]
    assert listener.status.reconnects >= 1


async def test_a_missed_heartbeat_ack_reconnects_and_resumes(
    engine: svc.Engine, client: httpx.AsyncClient, dc: FakeDiscord
) -> None:
    await _setup(client, engine, dc)
    dc.ack_heartbeats = False
    await dc.changes.until(lambda: dc.ops(6))
    dc.ack_heartbeats = True
    await wait_connected(engine, "discord")
    assert dc.connections >= 2


async def test_an_approval_button_answers_the_run_and_rate_limits_are_honoured(
    engine: svc.Engine, client: httpx.AsyncClient, dc: FakeDiscord, fake_model: Any
) -> None:
    await _setup(client, engine, dc)
    fake_model.enqueue(
        Turn.calls(FakeToolCall("write", {"path": "d.txt", "content": "discord"})),
        Turn.reply("file written"),
    )
    dc.rate_limit(0.01)
    dc.message(channel_id="C1", user_id="42", content="write it")
    await dc.changes.until(
        lambda: any(c.payload and c.payload.get("components") for c in dc.of("POST"))
    )
    ask = next(c for c in dc.of("POST") if c.payload and c.payload.get("components"))
    buttons = ask.payload["components"][0]["components"]
    once = next(b for b in buttons if b["label"] == "Allow once")
    message_id = next(mid for (ch, mid), t in dc.messages.items() if t == ask.payload["content"])
    dc.press(channel_id="C1", user_id="42", message_id=message_id, custom_id=once["custom_id"])
    await dc.changes.until(lambda: "file written" in dc.texts("C1"))
    assert (engine.workspace / "d.txt").read_text() == "discord"
    callbacks = [c for c in dc.of("POST") if c.path.startswith("/interactions/")]
    assert callbacks[0].payload["data"]["content"] == "Allow once: write"
    # The first REST call met a 429 and was retried after `retry_after`.
    assert dc.calls[0].method == "POST" and dc.calls[1].path == dc.calls[0].path


async def test_a_refused_token_stops_the_listener_with_its_reason(
    engine: svc.Engine, client: httpx.AsyncClient, dc: FakeDiscord
) -> None:
    await configure(
        client,
        "discord",
        bot_token="not-the-token",
        api_base_url=dc.url,
        gateway_url=dc.gateway_url,
        allowed_users=["42"],
    )
    await channels_of(engine).listeners["discord"].failed.wait()
    status = (await client.get("/channels/status")).json()["discord"]
    assert status["connected"] is False
    assert status["meta"]["last_error_code"] == "CHANNEL_AUTH_FAILED"
    assert "not-the-token" not in (await client.get("/channels/status")).text


async def test_an_attachment_is_fetched_from_an_allowed_host_only(
    engine: svc.Engine, client: httpx.AsyncClient, dc: FakeDiscord, fake_model: Any
) -> None:
    await _setup(client, engine, dc)
    fake_model.enqueue(Turn.reply("Read it."))
    note = dc.attach("notes.txt", b"the numbers")
    dc.message(channel_id="C1", user_id="42", content="read this", attachments=[note])
    await dc.changes.until(lambda: dc.texts("C1") == ["Read it."])
    listing = (await client.get("/global/storage/files", params={"path": "channel_uploads"})).json()
    paths = [f["path"] for f in listing["files"]]
    assert paths == ["channel_uploads/discord/C1/notes.txt"]
    assert (engine.state_dir / paths[0]).read_bytes() == b"the numbers"
    # An attachment URL naming any other host (here loopback by another name, as a
    # crafted message could) is refused before anything is sent.
    port = httpx.URL(dc.root_url).port
    elsewhere = dc.attach("secret.txt", b"internal", base=f"http://localhost:{port}")
    dc.message(channel_id="C2", user_id="42", content="and this", attachments=[elsewhere])
    await dc.changes.until(lambda: any("not at an address" in t for t in dc.texts("C2")))
    assert [c.path for c in dc.of("GET") if c.path.startswith("/attachments/")] == [
        "/attachments/notes.txt"
    ]
