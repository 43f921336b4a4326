"""Responses the engine builds itself are sent whole, and keep their connection usable.

Quart's own ``Response`` class sends a bare body by asking asyncio for its loop,
which quart-trio does not run: every 204 of ``prompt_async`` logged
``RuntimeError: no running event loop`` and broke its keep-alive connection.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import httpx
import pytest

import svc
from tests.helpers import text_prompt, wait_for_event

SVC = Path(svc.__file__).parent


async def test_204_prompts_keep_the_connection_and_log_no_error(
    engine: svc.Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=engine.url or "", timeout=15, limits=limits) as client:
        session = (await client.post("/session", json={})).json()
        for n in range(5):
            response = await client.post(
                f"/session/{session['id']}/prompt_async", json=text_prompt(f"hello {n}")
            )
            assert response.status_code == 204, response.text
            assert response.content == b""
            run_id = response.headers["x-svc-run-id"]
            assert (await client.get("/global/health")).status_code == 200
            await wait_for_event(engine, "session.run.finished", run_id=run_id)
            listed = await client.get(f"/session/{session['id']}/message")
            assert listed.status_code == 200
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_no_module_builds_quarts_asyncio_response() -> None:
    # Routes build svc.http.responses.Response (quart-trio's); see that module.
    pattern = re.compile(r"from quart(\.wrappers(\.response)?)? import [^\n]*\bResponse\b")
    offenders = [
        str(path.relative_to(SVC.parent))
        for path in SVC.rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
