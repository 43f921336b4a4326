"""A real engine process killed mid-run loses nothing that was committed."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import trio

from tests.fakes.turns import FakeToolCall, Turn


async def test_sigkill_mid_run_then_restart_keeps_the_transcript(
    served: Callable, fake_model: Any, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".svc").mkdir(parents=True, exist_ok=True)
    (workspace / ".svc" / "config.json").write_text(
        json.dumps(
            {
                "default_provider": "openai",
                "providers": {"openai": {"url": fake_model.url, "default_model": "fake-model"}},
            }
        )
    )
    (workspace / "notes.txt").write_text("remember the milk")
    gate = trio.Event()
    fake_model.enqueue(
        Turn.calls(FakeToolCall("read", {"path": "notes.txt"}, id="call_1"), text="Reading."),
        Turn.reply("never arrives", gate=gate, gate_after=0),
    )
    env = {"OPENAI_API_KEY": "sk-crash-test"}
    first = await served(env=env)
    async with httpx.AsyncClient(base_url=first.url, timeout=30) as client:
        sid = (await client.post("/session", json={"title": "crash"})).json()["id"]
        run_id = (
            await client.post(
                f"/session/{sid}/prompt_async",
                params={"return": "run"},
                json={"parts": [{"type": "text", "text": "read my notes"}]},
            )
        ).json()["runID"]
        # The second model call only starts after the tool step was committed.
        with trio.fail_after(30):
            await fake_model.wait_for_requests(2)
    first.process.send_signal(signal.SIGKILL)
    with trio.fail_after(30):
        await first.process.wait()
    gate.set()

    second = await served(env=env)
    async with httpx.AsyncClient(base_url=second.url, timeout=30) as client:
        messages = (await client.get(f"/session/{sid}/message")).json()
        assert messages[0]["parts"][0]["text"] == "read my notes"
        tool = next(p for p in messages[1]["parts"] if p["type"] == "tool")
        assert tool["state"] == "completed" and "remember the milk" in tool["result"]
        events = (await client.get(f"/runs/{run_id}/events")).json()["events"]
        finished = [e for e in events if e["event_type"] == "session.run.finished"]
        assert len(finished) == 1
        assert finished[0]["payload"]["status"] == "error"
        assert finished[0]["payload"]["error"]["code"] == "ENGINE_RESTARTED"
        assert (await client.get(f"/session/{sid}/run")).json() == {"active": None}
        # The session works again after the restart.
        again = await client.post(
            f"/session/{sid}/prompt_sync", json={"parts": [{"type": "text", "text": "ok?"}]}
        )
        assert again.json()["status"] == "completed"
