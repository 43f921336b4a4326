"""Fixtures for browser tests: loopback pages, an engine with the browser enabled against
real headless Chromium, and a check that no browser process outlives a test."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

import svc
from svc.browser.sidecar.launch import alive_pids_with
from svc.settings import Settings
from svc.tools import ToolContext
from tests.fakes.browser_pages import Pages, open_pages


@pytest.fixture
def profiles(tmp_path: Path) -> Iterator[Path]:
    """The browsers' user-data root: every Chromium a test starts has it in its command line."""
    root = tmp_path / "browser-profiles"
    yield root
    assert alive_pids_with(str(root)) == [], "a browser process outlived the test"


@pytest.fixture
async def pages() -> AsyncIterator[Pages]:
    async with open_pages() as served:
        yield served


def browser_block(profiles: Path, **extra: Any) -> dict[str, Any]:
    return {
        "enabled": True,
        "allow_no_sandbox": True,
        "allowed_hosts": ["127.0.0.1"],
        "user_data_root": str(profiles),
        **extra,
    }


@pytest.fixture
def browser_settings(make_settings: Callable[..., Settings], profiles: Path) -> Settings:
    return make_settings(browser=browser_block(profiles, max_sessions=4))


@pytest.fixture
async def browser_engine(browser_settings: Settings) -> AsyncIterator[svc.Engine]:
    async with svc.open_engine(browser_settings) as eng:
        yield eng


@attrs.frozen
class Call:
    ok: bool
    output: str
    metadata: Mapping[str, Any]

    @property
    def payload(self) -> Any:
        return json.loads(self.output)

    @property
    def code(self) -> str | None:
        return self.metadata.get("code")


async def call_tool(
    engine: svc.Engine, name: str, args: Mapping[str, Any], *, session: str | None = "ses_a"
) -> Call:
    """Run a tool through the engine's dispatcher, as an agent run does."""
    ctx = ToolContext(
        workspace=engine.workspace,
        source="session",
        session_id=session,
        http=engine.http,
        settings=engine.settings,
    )
    if session is not None:
        # Browser tools ask for approval by default; these sessions are pre-approved.
        engine.permissions.grant_session(session, [name])
    outcome = await engine.dispatcher.dispatch(name, args, ctx)
    assert outcome.ok, (outcome.code, outcome.error)
    metadata = dict(outcome.metadata)
    return Call(metadata.get("ok", True) is not False, outcome.output or "", metadata)
