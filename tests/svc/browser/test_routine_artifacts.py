"""A browser tool in a routine run's session stores a large extract or a screenshot as an
artifact of that run and announces ``routine.run.artifact_added`` (real Chromium, pages on
loopback, a scripted model)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import trio

import svc
from svc.events import Event
from svc.settings import Settings
from tests.fakes.browser_pages import Pages
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import wait_for_event

from .conftest import browser_block


def tool_completed(name: str) -> Callable[[Event], bool]:
    def matches(event: Event) -> bool:
        part = event.properties.get("part") or {}
        return bool(part.get("tool") == name and part.get("state") == "completed")

    return matches


ADDED = "routine.run.artifact_added"


def artifact_of(kind: str) -> Callable[[Event], bool]:
    return lambda event: bool(event.properties["artifact"]["kind"] == kind)


async def test_a_routine_session_gets_its_browser_artifacts_announced(
    make_settings: Callable[..., Settings], profiles: Path, pages: Pages, fake_model: Any
) -> None:
    settings = make_settings(
        browser=browser_block(profiles),
        default_provider="openai",
        providers={"openai": {"url": fake_model.url, "api_key": "sk-test", "default_model": "m"}},
    )
    # The browser session id exists only once browser_open has run: the later calls take
    # their arguments from these dicts, filled in while the second answer is held.
    held = trio.Event()
    extract_args: dict[str, Any] = {"format": "text"}
    shot_args: dict[str, Any] = {"label": "large page"}
    close_args: dict[str, Any] = {}
    fake_model.enqueue(
        Turn.calls(FakeToolCall("browser_open", {"url": pages.url + "/large"}, id="o1")),
        Turn.calls(
            FakeToolCall("browser_extract", extract_args, id="x1"),
            FakeToolCall("browser_screenshot", shot_args, id="s1"),
            gate=held,
        ),
        Turn.calls(FakeToolCall("browser_close", close_args, id="c1")),
        Turn.reply("Saved the page."),
    )
    routine = {
        "routine_id": "browse",
        "name": "Browse",
        "schedule": {"interval_seconds": {"seconds": 3600}},
        "entrypoint": "mission.default",
        "args": {"prompt": "Save the large page"},
        "allowed_tools": ["browser_open", "browser_extract", "browser_screenshot", "browser_close"],
        "external_integrations_allowed": True,
        "output_targets": [],
    }
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=60) as client,
    ):
        assert (await client.post("/routines", json=routine)).status_code == 200
        started = await client.post("/routines/browse/run_now", json={})
        assert started.status_code == 200, started.text
        run_id = started.json()["runID"]

        opened = await wait_for_event(
            engine, "message.part.updated", where=tool_completed("browser_open"), timeout=60
        )
        browser_session = json.loads(opened.properties["part"]["result"])["session_id"]
        for args in (extract_args, shot_args, close_args):
            args["session_id"] = browser_session
        held.set()

        added = [
            (await wait_for_event(engine, ADDED, where=artifact_of(kind), timeout=60)).properties
            for kind in ("extract", "screenshot")
        ]
        for props in added:
            assert props["runID"] == run_id and props["routineID"] == "browse"
            assert props["sessionID"] == opened.session_id
            assert Path(props["artifact"]["uri"]).is_file()
        extract, shot = (Path(p["artifact"]["uri"]) for p in added)
        assert "Paragraph 399" in extract.read_text()
        assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

        await wait_for_event(
            engine, "run.completed", where=lambda e: e.properties.get("runID") == run_id
        )
        stored = await client.get(f"/routines/runs/{run_id}/artifacts")
        assert stored.status_code == 200, stored.text
        uris = {a["uri"] for a in stored.json()["artifacts"]}
        assert {p["artifact"]["uri"] for p in added} <= uris
