"""The chat client's pure parts: rendering events, reading answers, parsing SSE."""

from __future__ import annotations

from typing import Any

from cli.chat.client import SseParser
from cli.chat.render import (
    Renderer,
    permission_prompt,
    permission_reply,
    question_answer,
    question_text,
    tool_summary,
)


def text(delta: str, part_id: str = "m-t0") -> dict[str, Any]:
    part = {"id": part_id, "type": "text", "text": delta}
    return {"type": "message.part.updated", "properties": {"part": part, "delta": delta}}


def tool(state: str, **extra: Any) -> dict[str, Any]:
    part = {"id": "call_1", "type": "tool", "tool": "bash", "state": state, **extra}
    return {"type": "message.part.updated", "properties": {"part": part}}


def finished(status: str, error: Any = None) -> dict[str, Any]:
    return {"type": "session.run.finished", "properties": {"status": status, "error": error}}


def test_deltas_stream_and_the_users_own_message_is_not_echoed() -> None:
    renderer = Renderer()
    out = [renderer.event(e) for e in (text("hi there", "u-0"), text("Hel"), text("lo"))]
    assert "".join(out) == "Hello"
    assert renderer.event(finished("completed")) == "\n"


def test_a_tool_call_gets_one_line_when_known_and_one_when_done() -> None:
    renderer = Renderer()
    args = {"command": "ls -la\n  /tmp"}
    lines = [
        renderer.event(text("Let me look.")),
        renderer.event(tool("pending", args=args)),
        renderer.event(tool("running", args=args)),
        renderer.event(tool("completed", args=args, result="a\nb")),
    ]
    assert "".join(lines) == "Let me look.\n[bash ls -la /tmp]\n  done: a b\n"
    # Streaming argument fragments (no args yet) print nothing.
    assert Renderer().event(tool("pending")) == ""


def test_run_endings() -> None:
    assert Renderer().event(finished("cancelled")) == "[run cancelled]\n"
    error = {"code": "AUTHENTICATION_ERROR", "message": "provider `openai` returned HTTP 401"}
    assert Renderer().event(finished("error", error)) == (
        "[run error: provider `openai` returned HTTP 401]\n"
    )


def test_tool_summary_is_one_bounded_line() -> None:
    assert tool_summary("read", {"path": "a.txt"}) == "read a.txt"
    assert tool_summary("todo_write", {"items": [1]}) == 'todo_write {"items":[1]}'
    long = tool_summary("write", {"path": "x" * 500})
    assert len(long) <= 72 and long.endswith("...")
    assert tool_summary("glob", {}) == "glob"


def test_permission_answers() -> None:
    prompt = permission_prompt({"tool": "write", "args": {"path": "b.txt"}})
    assert prompt == "Allow write b.txt? [y]es once, [a]lways, [n]o: "
    assert [permission_reply(a) for a in ("y", " YES ", "a", "n", "", None, "maybe")] == [
        "once",
        "once",
        "always",
        "reject",
        "reject",
        "reject",
        None,
    ]


def test_question_numbers_become_labels() -> None:
    question = {
        "header": "Pick",
        "question": "Which colour?",
        "options": [{"label": "red", "description": "warm"}, {"label": "blue"}],
        "multiple": True,
    }
    assert question_text(question) == "? Pick: Which colour?\n  1) red: warm\n  2) blue\n"
    assert question_answer("2, 1", question) == ["blue", "red"]
    assert question_answer("green", {**question, "multiple": False}) == ["green"]


def test_sse_parser_yields_each_frames_json() -> None:
    parser = SseParser()
    lines = [": keep-alive", "", "id: 7", 'data: {"type": "a",', 'data: "n": 1}', "", "data: x", ""]
    frames = [f for f in (parser.feed(line) for line in lines) if f is not None]
    assert frames == [{"type": "a", "n": 1}]
