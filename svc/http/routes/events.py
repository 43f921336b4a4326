"""Event streams (SSE) and the JSON replay of a run's events."""

from __future__ import annotations

from typing import Any

from quart import Blueprint, request

from ...events import EventFilter, json_frame
from ..request import engine, query_bool, query_int, query_str
from ..sse import event_frames, resume_cursor, sse_response

bp = Blueprint("events", __name__)


def _stream_filter() -> EventFilter:
    return EventFilter(
        session_id=query_str("sessionID", "sessionId", "session_id"),
        run_id=query_str("runID", "runId", "run_id"),
    )


@bp.get("/event")
@bp.get("/global/event")
async def events() -> Any:
    eng = engine()
    preamble = [
        json_frame({"type": "server.connected", "properties": {}}),
        json_frame(
            {
                "type": "engine.lifecycle.ready",
                "properties": {
                    "status": "ready",
                    "transport": "sse",
                    "timestamp_ms": eng.clock.now_ms(),
                },
            }
        ),
    ]
    filter = _stream_filter()
    after = resume_cursor()
    if after is None and filter.run_id is not None:
        # Attaching to one run: replay it from its first event, so a client that
        # subscribes just after `prompt_async` (the quick-start loop) misses none of a
        # fast run. A run with no event yet is followed live.
        first = await eng.events.replay(EventFilter(run_id=filter.run_id), after_seq=0, limit=1)
        if first:
            after = first[0].seq - 1
    body = event_frames(eng.events, filter, after_seq=after, preamble=preamble)
    return sse_response(body)


@bp.get("/runs/<run_id>/events")
async def run_events_replay(run_id: str) -> Any:
    eng = engine()
    after = query_int("after_seq", "since_seq", default=0, minimum=0)
    before = query_int("before_seq", default=None, minimum=1)
    limit = query_int("limit", default=250, minimum=1, maximum=1000, clamp=True)
    tail = query_int("tail", default=None, minimum=1, maximum=1000, clamp=True)
    found = await eng.events.replay(
        EventFilter(run_id=run_id),
        after_seq=after or 0,
        before_seq=before,
        limit=tail or limit or 250,
        tail=tail is not None,
    )
    records = [e.to_record() for e in found]
    return {
        "run_id": run_id,
        "events": records,
        "count": len(records),
        "first_seq": records[0]["seq"] if records else None,
        "last_seq": records[-1]["seq"] if records else None,
        "limit": limit,
        "tail": tail,
        "sequence_scope": "engine_event_log",
    }


@bp.get("/run/<run_id>/events")
async def run_events(run_id: str) -> Any:
    """SSE for ``Accept: text/event-stream``; otherwise a JSON array (client compatibility)."""
    eng = engine()
    if "text/event-stream" in request.headers.get("Accept", "") and not query_bool("json"):
        preamble = [json_frame({"type": "run.stream.connected", "properties": {"runID": run_id}})]
        body = event_frames(
            eng.events,
            EventFilter(run_id=run_id),
            after_seq=resume_cursor("since_seq", "cursor"),
            preamble=preamble,
        )
        return sse_response(body)
    after = query_int("since_seq", "after_seq", default=0, minimum=0)
    tail = query_int("tail", default=None, minimum=1, maximum=1000, clamp=True)
    found = await eng.events.replay(
        EventFilter(run_id=run_id), after_seq=after or 0, limit=tail or 1000, tail=tail is not None
    )
    # Each item also carries `type` and `properties`, the shape event parsers read.
    return [{**e.to_record(), "type": e.type, "properties": dict(e.properties)} for e in found]
