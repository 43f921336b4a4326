"""Slack end to end: signed Events API requests in, Web API calls out."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import svc
from tests.fakes.slack_server import FakeSlack, open_fake_slack, send_event, sign
from tests.fakes.turns import FakeToolCall, Turn

from .conftest import configure, wait_connected

TOKEN = "xoxb-slack-secret-bot-token"
SECRET = "slack-signing-secret-value"


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with open_fake_slack(TOKEN) as server:
        yield server


async def _setup(client: httpx.AsyncClient, engine: svc.Engine, slack: FakeSlack) -> None:
    await configure(
        client,
        "slack",
        bot_token=TOKEN,
        signing_secret=SECRET,
        api_base_url=slack.url,
        allowed_users=["U42"],
        stream_edit_interval_ms=0,
    )
    await wait_connected(engine, "slack")


def _message(text: str, *, event_id: str = "Ev1", user: str = "U42") -> dict[str, Any]:
    return {
        "type": "event_callback",
        "event_id": event_id,
        "event": {
            "type": "message",
            "channel": "D1",
            "channel_type": "im",
            "user": user,
            "text": text,
            "ts": f"{event_id}.1",
        },
    }


async def test_url_verification_challenge_is_answered(
    engine: svc.Engine, client: httpx.AsyncClient, slack: FakeSlack
) -> None:
    await _setup(client, engine, slack)
    answer = await send_event(client, SECRET, {"type": "url_verification", "challenge": "c-1"})
    assert answer.status_code == 200 and answer.json() == {"challenge": "c-1"}


async def test_message_streams_an_answer_through_updates(
    engine: svc.Engine, client: httpx.AsyncClient, slack: FakeSlack
) -> None:
    await _setup(client, engine, slack)
    sent = await send_event(client, SECRET, _message("hello slack world"))
    assert sent.status_code == 200
    await slack.changes.until(lambda: slack.texts("D1") == ["hello slack world"])
    assert slack.of("chat.postMessage")[0].payload["text"] == "…"
    assert slack.of("chat.update")[-1].payload["text"] == "hello slack world"
    # Slack retries an event it thinks was lost: it is not answered twice.
    await send_event(client, SECRET, _message("hello slack world"))
    await send_event(client, SECRET, _message("second", event_id="Ev2"))
    await slack.changes.until(lambda: "second" in slack.texts("D1"))
    assert slack.texts("D1") == ["hello slack world", "second"]


async def test_forged_signature_and_stale_timestamp_are_refused(
    engine: svc.Engine, client: httpx.AsyncClient, slack: FakeSlack
) -> None:
    await _setup(client, engine, slack)
    forged = await send_event(client, "wrong-secret", _message("forged"))
    assert forged.status_code == 401
    stale_ts = int(time.time()) - 301
    body_ts = await send_event(client, SECRET, _message("stale"), timestamp=stale_ts)
    assert body_ts.status_code == 401
    garbage = await send_event(client, SECRET, _message("x"), signature="v0=00")
    assert garbage.status_code == 401
    not_a_number = await client.post(
        "/channels/slack/events",
        content=b"{}",
        headers={"X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": sign(SECRET, 0, b"{}")},
    )
    assert not_a_number.status_code == 401
    # Nothing happened: no session, no Slack call beyond the connect check.
    assert (await client.get("/session")).json() == []
    assert [c.method for c in slack.calls] == ["auth.test"]


async def test_signed_route_needs_no_api_token_but_others_do(
    make_settings: Any, fake_model: Any, slack: FakeSlack
) -> None:
    settings = make_settings(env={"SVC_API_TOKEN": "engine-api-token-1234"})
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        assert (await client.get("/channels/status")).status_code == 401
        assert (await client.get("/channels/config")).status_code == 401
        assert (await client.post("/channels/discord/verify")).status_code == 401
        # Not configured: the signature cannot be checked, so nothing is accepted.
        answer = await send_event(client, SECRET, {"type": "url_verification"})
        assert answer.status_code == 404


async def test_approval_button_answers_the_run(
    engine: svc.Engine, client: httpx.AsyncClient, slack: FakeSlack, fake_model: Any
) -> None:
    await _setup(client, engine, slack)
    fake_model.enqueue(
        Turn.calls(FakeToolCall("write", {"path": "s.txt", "content": "slack"})),
        Turn.reply("done writing"),
    )
    await send_event(client, SECRET, _message("write it"))
    await slack.changes.until(
        lambda: any(c.payload.get("blocks") for c in slack.of("chat.postMessage"))
    )
    ask = next(c for c in slack.of("chat.postMessage") if c.payload.get("blocks"))
    elements = ask.payload["blocks"][1]["elements"]
    once = next(e for e in elements if e["text"]["text"] == "Allow once")
    ts = next(ts for (ch, ts), text in slack.messages.items() if text == ask.payload["text"])
    action = {
        "type": "block_actions",
        "user": {"id": "U42"},
        "channel": {"id": "D1"},
        "message": {"ts": ts},
        "actions": [{"action_id": once["action_id"], "value": once["value"]}],
    }
    answered = await send_event(client, SECRET, action, form=True)
    assert answered.status_code == 200
    await slack.changes.until(lambda: "done writing" in slack.texts("D1"))
    assert (engine.workspace / "s.txt").read_text() == "slack"


async def test_the_signature_window_is_five_minutes_by_the_engine_clock(
    autojump_clock: Any,
) -> None:
    from svc.channels.slack import signature_valid
    from svc.clock import TrioClock

    clock = TrioClock(epoch_ms=1_800_000_000_000)
    now = 1_800_000_000
    body = b'{"type":"event_callback"}'

    def headers(ts: int, secret: str = SECRET) -> dict[str, str]:
        return {"X-Slack-Request-Timestamp": str(ts), "X-Slack-Signature": sign(secret, ts, body)}

    assert signature_valid(SECRET, headers(now), body, clock)
    assert signature_valid(SECRET, headers(now - 300), body, clock)
    assert not signature_valid(SECRET, headers(now - 301), body, clock)
    assert not signature_valid(SECRET, headers(now + 301), body, clock)
    assert not signature_valid(SECRET, headers(now, "other-secret"), body, clock)
    assert not signature_valid(SECRET, headers(now), body + b" ", clock)
