"""Every page renders in Chromium without a script error; screenshots for a person to look at."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

import svc
from svc import Settings

from .browser import open_page, run_in_browser, screenshot

PAGES = [
    ("sessions", "Sessions"),
    ("approvals", "Approvals"),
    ("automations", "Automations"),
    ("teams", "Agent teams"),
    ("goals", "Goals"),
    ("mcp", "MCP connectors"),
    ("memory", "Memory"),
    ("incidents", "Incident monitor"),
    ("enterprise", "Enterprise readiness"),
    ("browser", "Browser"),
    ("channels", "Channels"),
    ("engine", "Engine"),
]


async def test_every_page_renders_and_is_screenshotted(
    make_settings: Callable[..., Settings],
) -> None:
    async with (
        svc.open_engine(make_settings(web_ui=True), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        await client.post("/session", json={"title": "A first session"})

        def scenario() -> dict[str, Any]:
            errors: list[str] = []
            shown: dict[str, str] = {}
            with open_page() as page:
                page.on("pageerror", lambda error: errors.append(str(error)))
                for key, _title in PAGES:
                    page.goto(f"{engine.url}/admin/#/{key}")
                    heading = page.get_by_role("heading", level=1).first
                    heading.wait_for()
                    page.wait_for_function("() => !document.body.innerText.includes('Loading…')")
                    shown[key] = heading.inner_text()
                    screenshot(page, f"page-{key}")
                page.set_viewport_size({"width": 390, "height": 800})
                page.goto(f"{engine.url}/admin/#/sessions")
                page.get_by_role("button", name="Menu").wait_for()
                screenshot(page, "narrow-sessions")
            return {"errors": errors, "shown": shown}

        result = await run_in_browser(scenario)
    assert result["errors"] == []
    for key, title in PAGES:
        assert result["shown"][key].startswith(title), (key, result["shown"][key])
