"""Small helpers shared by engine-level tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

import svc
from svc.events import Event, EventFilter, EventStream


async def wait_for_event(
    engine: svc.Engine,
    type: str,
    *,
    session_id: str | None = None,
    run_id: str | None = None,
    after_seq: int = 0,
    where: Callable[[Event], bool] | None = None,
    timeout: float = 30.0,
) -> Event:
    """The first event of ``type`` (after ``after_seq``) matching the filters.

    Replays the log first."""
    with (
        trio.fail_after(timeout),
        EventStream(
            engine.events, EventFilter(session_id=session_id, run_id=run_id), after_seq=after_seq
        ) as stream,
    ):
        while True:
            for event in await stream.receive():
                if event.type == type and (where is None or where(event)):
                    return event


async def run_events(engine: svc.Engine, run_id: str) -> list[Event]:
    """Every event of a finished run, in order."""
    await engine.events.flush()
    return await engine.events.replay(EventFilter(run_id=run_id), limit=100_000)


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def text_prompt(text: str, **extra: Any) -> dict[str, Any]:
    return {"parts": [{"type": "text", "text": text}], **extra}


async def read_sse(response: Any, count: int) -> list[dict[str, str]]:
    """The first ``count`` SSE data frames (keep-alive comments skipped).

    Frames that arrived in the same chunk as the last wanted one are dropped:
    how the server's writes are chunked is timing, not behaviour.

    Stops by cancelling a scope rather than leaving the loop: the cancellation
    runs through httpx's async generators, which therefore finish cleanly.
    """
    from svc.events import parse_frames

    buffer = ""
    frames: list[dict[str, str]] = []
    with trio.CancelScope() as scope:
        async for chunk in response.aiter_text():
            buffer += chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                frames.extend(parse_frames(block + "\n\n"))
            if len(frames) >= count:
                scope.cancel()
    return frames[:count]
