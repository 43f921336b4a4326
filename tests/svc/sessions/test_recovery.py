"""Rebuilding an interrupted run's answer from its committed part events."""

from __future__ import annotations

from typing import Any

from svc.events import Event
from svc.sessions import Message, Run
from svc.sessions.recovery import interrupted_message, streamed_parts


def part_event(seq: int, part: dict[str, Any], **extra: Any) -> Event:
    return Event(
        seq=seq,
        event_id=f"e{seq}",
        type="message.part.updated",
        properties={"part": part, "sessionID": "s", "runID": "r", **extra},
        occurred_at_ms=seq,
        session_id="s",
        run_id="r",
    )


def text(seq: int, part_id: str, delta: str, message: str = "a") -> Event:
    part = {"id": part_id, "messageID": message, "type": "text", "text": delta}
    return part_event(seq, part, delta=delta)


def tool(seq: int, state: str, **extra: Any) -> Event:
    part = {"id": "call_1", "messageID": "a", "type": "tool", "tool": "read", "state": state}
    return part_event(seq, {**part, **extra})


def test_text_deltas_join_and_unfinished_tools_fail() -> None:
    events = [
        text(1, "u-0", "the prompt", message="u"),
        text(2, "a-t0", "Reading "),
        text(3, "a-t0", "now."),
        part_event(
            4,
            {"id": "c0", "messageID": "a", "type": "tool", "state": "pending"},
            toolCallDelta={"argsDelta": "{"},
        ),
        tool(5, "pending", args={"path": "x"}),
        tool(6, "running"),
        text(7, "a-final", "whole answer"),
    ]
    message_id, parts = streamed_parts(events, user_message_id="u")
    assert message_id == "a"
    assert [p["id"] for p in parts] == ["a-t0", "call_1"]
    assert parts[0]["text"] == "Reading now."
    assert parts[1]["state"] == "failed" and "engine stopped" in parts[1]["error"]


def test_stored_parts_win_and_later_ones_are_appended() -> None:
    run = Run(id="r", session_id="s", status="running", started_at_ms=5, last_activity_at_ms=5)
    stored = Message(
        id="a",
        session_id="s",
        role="assistant",
        parts=({"id": "a-t0", "type": "text", "text": "Reading now."},),
        created_at_ms=5,
        run_id="r",
        info={"runID": "r"},
    )
    events = [
        text(1, "a-t0", "Reading "),
        tool(2, "completed", result="ok"),
        text(3, "a-t2", "Hal"),
    ]
    message_id, parts = streamed_parts(events, user_message_id="u")
    assert message_id is not None
    message = interrupted_message(run, message_id, stored, parts)
    assert [p["id"] for p in message.parts] == ["a-t0", "call_1", "a-t2"]
    assert message.parts[0]["text"] == "Reading now."
    assert message.parts[1]["state"] == "completed"
    assert message.parts[2]["text"] == "Hal"
    assert message.info == {"runID": "r", "interrupted": True}
