"""Waiting on humans is bounded: permission and question timeouts, under a MockClock."""

from __future__ import annotations

import trio
import trio.testing

import svc
from svc.sessions import CreateSession, RunRequest


async def run_text(engine: svc.Engine, text: str) -> svc.sessions.Run:
    session = await engine.sessions.create(CreateSession())
    started = await engine.sessions.prompt(
        session.id, RunRequest(parts=({"type": "text", "text": text},))
    )
    return await engine.sessions.wait(started)


async def test_an_unanswered_permission_times_out_and_fails_the_call(
    settings: svc.Settings, autojump_clock: trio.testing.MockClock
) -> None:
    async with svc.open_engine(settings) as engine:
        before = trio.current_time()
        run = await run_text(engine, '/tool write {"path": "x.txt", "content": "x"}')
        waited = trio.current_time() - before
        messages = await engine.sessions.messages(run.session_id)
    tool = next(p for p in messages[1].parts if p["type"] == "tool")
    assert run.status == "completed"
    assert tool["state"] == "failed"
    assert tool["error"] == "Permission request timed out after 120000 ms"
    assert 120 <= waited < 121
    assert not (settings.resolved_workspace / "x.txt").exists()


async def test_an_unanswered_question_times_out(
    settings: svc.Settings, autojump_clock: trio.testing.MockClock
) -> None:
    async with svc.open_engine(settings) as engine:
        run = await run_text(engine, '/tool question {"question": "Which one?"}')
        messages = await engine.sessions.messages(run.session_id)
        pending = await engine.questions.pending()
    tool = next(p for p in messages[1].parts if p["type"] == "tool")
    assert tool["state"] == "failed" and "not answered within 300000 ms" in tool["error"]
    assert pending == []


async def test_a_run_deadline_during_a_tool_call_records_the_call_as_failed(
    make_settings: object, autojump_clock: trio.testing.MockClock
) -> None:
    settings = make_settings(run_timeout_ms=1_000)  # type: ignore[operator]
    async with svc.open_engine(settings) as engine:
        run = await run_text(engine, '/tool bash {"command": "sleep 30", "timeout_ms": 60000}')
        messages = await engine.sessions.messages(run.session_id)
    assert run.status == "timeout"
    tool = next(p for p in messages[1].parts if p["type"] == "tool")
    assert tool["state"] == "failed" and "before the tool call finished" in tool["error"]
