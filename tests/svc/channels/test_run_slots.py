"""More conversations at once than the engine runs: they queue for a run slot, none fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

import svc
from svc import Settings
from svc.channels import channels_of
from tests.fakes.telegram_server import open_fake_telegram

from .conftest import configure, wait_connected

TOKEN = "778:run-slots-token"


async def test_conversations_past_the_run_limit_wait_for_a_slot(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    settings = make_settings(
        max_concurrent_runs=1,
        default_provider="openai",
        providers={
            "openai": {"url": fake_model.url, "api_key": "sk-t", "default_model": "fake-model"}
        },
    )
    async with (
        open_fake_telegram(TOKEN) as tg,
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30) as client,
    ):
        await configure(
            client,
            "telegram",
            bot_token=TOKEN,
            api_base_url=tg.url,
            allowed_users=["*"],
            stream_edit_interval_ms=0,
            poll_timeout_s=5,
        )
        await wait_connected(engine, "telegram")
        chats = list(range(101, 107))
        for chat in chats:
            tg.push_message(chat_id=chat, user_id=chat, text=f"hello from {chat}")
        # The fake model echoes each prompt: every conversation gets its own answer.
        await tg.changes.until(lambda: all(f"hello from {c}" in tg.texts(c) for c in chats))
        status = (await channels_of(engine).status())["telegram"]
    assert status["last_error"] is None
