"""MCP connectors, memory, the capability status pages and the engine page in real Chromium,
each showing real data: a real MCP server, stored memories, an incident draft, a connected
Telegram channel (the loopback Bot API), the provider configuration with its secret masked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

import svc
from svc import Settings
from svc.channels import channels_of
from tests.fakes.mcp_servers import open_mcp_server, workbench_server
from tests.fakes.telegram_server import open_fake_telegram
from tests.svc.incidents.support import configure as configure_incidents
from tests.svc.incidents.support import report

from .browser import open_page, run_in_browser, screenshot

PROVIDER_KEY = "sk-provider-secret-4242"
BOT_TOKEN = "4242:status-page-token"
MEMORIES = [
    "the deploy key rotates every ninety days",
    "deploys happen on fridays after the freeze",
    "lunch is at noon in the small kitchen",
]


def late_tool(text: str) -> str:
    """A tool the server gains after the first listing (found by a refresh)."""
    return text


async def test_mcp_memory_status_and_engine_pages_show_real_data(
    make_settings: Callable[..., Settings], fake_model: Any
) -> None:
    settings = make_settings(
        web_ui=True,
        default_provider="openai",
        providers={
            "openai": {"url": fake_model.url, "api_key": PROVIDER_KEY, "default_model": "m"}
        },
    )
    async with (
        open_mcp_server(workbench_server()) as mcp,
        open_fake_telegram(BOT_TOKEN) as tg,
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30) as client,
    ):
        added = await client.post("/mcp", json={"name": "bench", "transport": mcp.url})
        assert added.status_code == 200, added.text
        for text in MEMORIES:
            stored = await client.post("/memory/put", json={"text": text, "tier": "global"})
            assert stored.status_code == 200, stored.text
        await configure_incidents(client)
        await client.post("/incident-monitor/report", json={"report": report("Export failed")})
        await client.put(
            "/channels/telegram",
            json={"bot_token": BOT_TOKEN, "api_base_url": tg.url, "allowed_users": ["42"]},
        )
        await channels_of(engine).listeners["telegram"].connected.wait()
        url = f"{engine.url}/admin/#/"

        def scenario() -> dict[str, Any]:
            out: dict[str, Any] = {}
            with open_page() as page:
                page.goto(url + "mcp")
                card = page.locator('[data-connector="bench"]')
                card.get_by_text("disconnected").wait_for()
                out["tools_before"] = card.locator("summary").inner_text()
                card.get_by_role("button", name="Connect").click()
                card.get_by_text("connected", exact=True).wait_for()
                card.get_by_text("7 tools").wait_for()
                card.locator("summary").click()
                out["tools"] = card.locator("li code").all_inner_texts()
                screenshot(page, "data-mcp")
                mcp.server.add_tool(late_tool, name="late_tool")
                card.get_by_role("button", name="Refresh").click()
                card.get_by_text("8 tools").wait_for()
                out["refreshed"] = card.locator("li code").all_inner_texts()

                page.goto(url + "memory")
                page.get_by_label("Query").fill("deploy key rotation")
                page.get_by_role("button", name="Search").click()
                results = page.locator("ol.results li")
                results.first.wait_for()
                out["results"] = results.all_inner_texts()
                screenshot(page, "data-memory")

                page.goto(url + "incidents")
                drafts = page.get_by_role("table", name="Incident drafts")
                drafts.wait_for()
                out["drafts"] = drafts.inner_text()
                out["incident_status"] = page.locator("section").first.inner_text()
                screenshot(page, "data-incidents")

                for key, marker in (
                    ("enterprise", "tenant_context"),
                    ("browser", "blocking_issues"),
                    ("channels", "telegram"),
                ):
                    page.goto(url + key)
                    page.get_by_text(marker).first.wait_for()
                    out[key] = page.locator("main").inner_text()
                    screenshot(page, f"data-{key}")

                page.goto(url + "engine")
                page.get_by_text("Version").wait_for()
                page.get_by_text("default_model").wait_for()
                out["engine"] = page.locator("main").inner_text()
                page.get_by_role("button", name="Reload configuration").click()
                page.get_by_text("Configuration reloaded").wait_for()
                screenshot(page, "data-engine")
                out["html"] = page.content()
            return out

        result = await run_in_browser(scenario)
    assert result["tools_before"].startswith("0 tools")
    assert "mcp.bench.add" in result["tools"] and "mcp.bench.echo" in result["tools"]
    assert "mcp.bench.late_tool" in result["refreshed"]
    # Ranked: the best match first, the unrelated note not at all or last.
    assert "deploy key rotates" in result["results"][0]
    assert not any("lunch" in r for r in result["results"][:-1])
    assert "Export failed" in result["drafts"]
    assert '"enabled": true' in result["incident_status"]
    assert '"mode": "local"' in result["enterprise"]
    assert "disabled_by_config" in result["browser"]
    telegram = result["channels"].split('"telegram"', 1)[1].split('"discord"', 1)[0]
    assert '"enabled": true' in telegram and '"connected": true' in telegram
    assert "[REDACTED]" in result["engine"]
    assert PROVIDER_KEY not in result["html"]
