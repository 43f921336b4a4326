"""An engine killed mid-stream keeps the answer it had streamed, marked interrupted."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import trio

from svc.events import parse_frames
from tests.fakes.turns import Turn, split_words
from tests.helpers import text_prompt

ANSWER = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
STREAMED_CHUNKS = 9


async def _wait_for_streamed_text(
    client: httpx.AsyncClient, sid: str, run_id: str, expected: str
) -> None:
    """Read the run's SSE stream until its deltas spell ``expected``.

    Events reach SSE clients only after the event log committed them, so once
    they are seen here they are durable.
    """
    user_message_id = (await client.get(f"/session/{sid}/message")).json()[0]["info"]["id"]
    text = ""
    buffer = ""
    params = {"sessionID": sid, "runID": run_id, "cursor": "0"}
    async with client.stream("GET", "/event", params=params) as response:
        with trio.CancelScope() as scope:
            async for chunk in response.aiter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    for frame in parse_frames(block + "\n\n"):
                        event = json.loads(frame["data"])
                        props = event.get("properties", {})
                        part = props.get("part") or {}
                        if (
                            event.get("type") == "message.part.updated"
                            and part.get("type") == "text"
                            and part.get("messageID") != user_message_id
                            and "delta" in props
                        ):
                            text += props["delta"]
                if text == expected:
                    scope.cancel()
    assert text == expected


async def test_sigkill_mid_stream_keeps_the_streamed_prefix_marked_interrupted(
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
    chunks = split_words(ANSWER)
    prefix = "".join(chunks[:STREAMED_CHUNKS])
    # The model streams a prefix and then holds the rest of its answer.
    gate = trio.Event()
    fake_model.enqueue(Turn(chunks=chunks, gate=gate, gate_after=STREAMED_CHUNKS))
    env = {"OPENAI_API_KEY": "sk-crash-test"}
    first = await served(env=env)
    async with httpx.AsyncClient(base_url=first.url, timeout=30) as client:
        sid = (await client.post("/session", json={"title": "crash"})).json()["id"]
        response = await client.post(
            f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt("count")
        )
        run_id = response.json()["runID"]
        with trio.fail_after(30):
            await _wait_for_streamed_text(client, sid, run_id, prefix)
    first.process.send_signal(signal.SIGKILL)
    with trio.fail_after(30):
        await first.process.wait()
    gate.set()

    second = await served(env=env)
    async with httpx.AsyncClient(base_url=second.url, timeout=30) as client:
        messages = (await client.get(f"/session/{sid}/message")).json()
        assert [m["info"]["role"] for m in messages] == ["user", "assistant"]
        reply = messages[1]
        assert reply["info"]["interrupted"] is True
        assert [p["type"] for p in reply["parts"]] == ["text"]
        assert reply["parts"][0]["text"] == prefix
        events = (await client.get(f"/runs/{run_id}/events")).json()["events"]
        finished = [e for e in events if e["event_type"] == "session.run.finished"]
        assert len(finished) == 1
        assert finished[0]["payload"]["error"]["code"] == "ENGINE_RESTARTED"
        run = (await client.get(f"/session/{sid}/run")).json()
        assert run == {"active": None}
