"""The quick-start loop of existing clients: start a run, attach to its stream, print the deltas.

The loop below is what such clients do (read SSE frames, parse each ``data:`` as an event,
print ``properties.delta`` of ``session.response`` events, stop at a terminal event),
written with httpx against a live engine.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import trio

from tests.fakes.turns import Turn

TERMINAL = {"run.complete", "run.completed", "run.failed", "session.run.finished"}


async def follow(client: httpx.AsyncClient, url: str) -> list[dict[str, Any]]:
    """Events of an SSE stream, as a client parses them, up to a terminal one.

    Stops by cancelling a scope rather than leaving the loop: the cancellation runs
    through httpx's async generators, which therefore finish cleanly.
    """
    from svc.events import parse_frames

    seen: list[dict[str, Any]] = []
    buffer = ""
    headers = {"Accept": "text/event-stream"}
    async with client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        with trio.CancelScope() as scope:
            async for chunk in response.aiter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    for frame in parse_frames(block + "\n\n"):
                        payload = json.loads(frame.get("data") or "null")
                        if not isinstance(payload, dict) or scope.cancel_called:
                            continue
                        payload.setdefault("properties", {})
                        seen.append(payload)
                        if payload.get("type") in TERMINAL:
                            scope.cancel()
    return seen


async def quick_start(client: httpx.AsyncClient, session_id: str, prompt: str) -> str:
    started = await client.post(
        f"/session/{session_id}/prompt_async",
        params={"return": "run"},
        json={"parts": [{"type": "text", "text": prompt}]},
    )
    assert started.status_code == 202, started.text
    run_id = started.json()["runID"]
    events = await follow(client, f"/event?sessionID={session_id}&runID={run_id}")
    assert events[-1]["type"] in TERMINAL
    # The client loop: print `properties.delta` of every `session.response` event.
    return "".join(
        e["properties"].get("delta", "") for e in events if e["type"] == "session.response"
    )


async def test_quick_start_loop_prints_the_streamed_answer(
    model_settings: Any, fake_model: Any
) -> None:
    import svc

    fake_model.enqueue(Turn.reply("The answer is forty two."))
    async with (
        svc.open_engine(model_settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as client,
    ):
        session = (await client.post("/session", json={"title": "quick"})).json()
        text = await quick_start(client, session["id"], "What is the answer?")
    assert text == "The answer is forty two."


async def test_attaching_after_a_fast_run_ended_still_sees_all_of_it(
    client: httpx.AsyncClient,
) -> None:
    """The offline echo model finishes before the client attaches: the run is replayed."""
    session = (await client.post("/session", json={"title": "fast"})).json()
    sync = await client.post(
        f"/session/{session['id']}/prompt_sync",
        json={"parts": [{"type": "text", "text": "hello there"}]},
    )
    run_id = sync.json()["runID"]
    seen = await follow(client, f"/event?sessionID={session['id']}&runID={run_id}")
    deltas = "".join(e["properties"]["delta"] for e in seen if e["type"] == "session.response")
    assert deltas == sync.json()["reply"]
    assert seen[-1]["type"] == "session.run.finished"


async def test_run_events_json_items_carry_type_and_properties(
    client: httpx.AsyncClient,
) -> None:
    session = (await client.post("/session", json={"title": "events"})).json()
    sync = await client.post(
        f"/session/{session['id']}/prompt_sync",
        json={"parts": [{"type": "text", "text": "list me"}]},
    )
    events = (await client.get(f"/run/{sync.json()['runID']}/events")).json()
    assert isinstance(events, list) and events
    assert all(isinstance(e["type"], str) and isinstance(e["properties"], dict) for e in events)
    assert events[-1]["type"] == "session.run.finished"
    assert events[-1]["event_type"] == "session.run.finished"  # the reference's name, kept


async def test_prompt_sync_answers_with_reply_text_and_the_messages(
    client: httpx.AsyncClient,
) -> None:
    session = (await client.post("/session", json={"title": "sync"})).json()
    body = (
        await client.post(
            f"/session/{session['id']}/prompt_sync",
            json={"parts": [{"type": "text", "text": "echo me"}]},
        )
    ).json()
    assert body["reply"] == body["text"] == body["output"] != ""
    assert [m["info"]["role"] for m in body["messages"]] == ["user", "assistant"]
