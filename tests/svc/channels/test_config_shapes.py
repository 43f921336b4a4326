"""The shapes clients read from the channel routes: an object per channel in the config, the
verify answer, the tool preferences."""

from __future__ import annotations

import httpx

import svc
from tests.fakes.telegram_server import open_fake_telegram

from .conftest import configure

TOKEN = "779:config-shapes-token"


async def test_config_has_an_object_for_every_channel_configured_or_not(
    engine: svc.Engine, client: httpx.AsyncClient
) -> None:
    fresh = (await client.get("/channels/config")).json()
    for name in ("telegram", "discord", "slack"):
        assert fresh[name]["configured"] is False and fresh[name]["has_token"] is False
        assert fresh[name]["allowed_users"] == [] and fresh[name]["token_masked"] is None
    async with open_fake_telegram(TOKEN) as tg:
        await configure(
            client, "telegram", bot_token=TOKEN, api_base_url=tg.url, allowed_users=["42"]
        )
        after = (await client.get("/channels/config")).json()
        verified = (await client.post("/channels/telegram/verify", json={})).json()
    assert after["telegram"]["configured"] is True and after["telegram"]["has_token"] is True
    assert after["telegram"]["allowed_users"] == ["42"] and TOKEN not in str(after)
    assert after["discord"]["configured"] is False
    assert verified["ok"] is True and verified["channel"] == "telegram"
    prefs = await client.put(
        "/channels/telegram/tool-preferences",
        json={"enabled_tools": ["read"], "disabled_tools": ["bash"]},
    )
    assert prefs.status_code == 200, prefs.text
    shown = (await client.get("/channels/telegram/tool-preferences")).json()
    assert shown["disabled_tools"] == ["bash"] and "enabled_mcp_servers" in shown
