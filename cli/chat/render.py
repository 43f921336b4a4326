"""What the chat client prints for the engine's events, and how it reads answers (pure).

The answer streams as text deltas arrive; a tool call gets one line when it
starts (its name and a one-line summary of its arguments) and one when it ends.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

SUMMARY_WIDTH = 72
# Arguments that say best what a call does, in order of preference.
SUMMARY_KEYS = ("command", "path", "file_path", "pattern", "url", "query", "glob")

PERMISSION_REPLIES = {
    "y": "once",
    "yes": "once",
    "once": "once",
    "a": "always",
    "always": "always",
    "n": "reject",
    "no": "reject",
    "reject": "reject",
    "deny": "reject",
    "": "reject",
}

HELP = """\
Commands:
  /new              start a new session
  /sessions [ID]    list recent sessions, or switch to session ID
  /model [P/M]      show the model, or use provider P and model M in this session
  /help             this text
  /quit             leave (so does Ctrl-D, or Ctrl-C twice)
Ctrl-C while the model works cancels the run."""


def one_line(text: object, width: int = SUMMARY_WIDTH) -> str:
    """``text`` squashed onto one line, cut to ``width`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 3] + "..."


def tool_summary(tool: str, args: Mapping[str, Any] | None) -> str:
    """``bash ls -la``: the tool's name and its most telling argument (else compact JSON)."""
    if not args:
        return tool
    detail = next((args[k] for k in SUMMARY_KEYS if isinstance(args.get(k), str)), None)
    if detail is None:
        detail = json.dumps(dict(args), ensure_ascii=False, separators=(",", ":"), default=str)
    return f"{tool} {one_line(detail, SUMMARY_WIDTH - len(tool) - 1)}"


class Renderer:
    """Turns one run's events into terminal text (``event`` returns what to write)."""

    def __init__(self) -> None:
        self.at_line_start = True
        self._shown: dict[str, str] = {}

    def _line(self, text: str) -> str:
        """``text`` as its own line, starting a new one if the answer left one open."""
        prefix = "" if self.at_line_start else "\n"
        self.at_line_start = True
        return f"{prefix}{text}\n"

    def end_line(self) -> str:
        """A newline if the answer left a line open (before an inline question)."""
        ended = "" if self.at_line_start else "\n"
        self.at_line_start = True
        return ended

    def _text(self, text: str) -> str:
        if text:
            self.at_line_start = text.endswith("\n")
        return text

    def event(self, event: Mapping[str, Any]) -> str:
        kind = event.get("type")
        props = event.get("properties") or {}
        if kind == "message.part.updated":
            return self._part(props)
        if kind == "session.run.finished":
            return self._finished(props)
        if kind == "tool.denied":
            return self._line(f"  denied: {one_line(props.get('reason') or props.get('tool'))}")
        return ""

    def _part(self, props: Mapping[str, Any]) -> str:
        part = props.get("part") or {}
        if part.get("type") == "text":
            delta = props.get("delta")
            # The user's own message (``<message id>-0``) is echoed first: not an answer.
            if not isinstance(delta, str) or str(part.get("id", "")).endswith("-0"):
                return ""
            return self._text(delta)
        if part.get("type") == "tool" and "args" in part:
            return self._tool(part)
        return ""

    def _tool(self, part: Mapping[str, Any]) -> str:
        part_id, state = str(part.get("id")), str(part.get("state"))
        seen = self._shown.get(part_id)
        if seen == state or (seen is not None and state == "running"):
            return ""
        self._shown[part_id] = state
        name = str(part.get("tool") or "tool")
        if state in ("pending", "running"):
            # Once per call, as soon as its arguments are known (before any approval).
            return self._line(f"[{tool_summary(name, part.get('args'))}]")
        if state == "completed":
            return self._line(f"  done: {one_line(part.get('result') or 'ok')}")
        return self._line(f"  {state}: {one_line(part.get('error') or state)}")

    def _finished(self, props: Mapping[str, Any]) -> str:
        status = props.get("status")
        if status == "completed":
            return self.end_line()
        if status == "cancelled":
            return self._line("[run cancelled]")
        error = props.get("error")
        if isinstance(error, Mapping):
            error = error.get("message") or error.get("code")
        return self._line(f"[run {status}: {one_line(error or 'no detail', 200)}]")


def permission_prompt(props: Mapping[str, Any]) -> str:
    tool = str(props.get("tool") or props.get("permission") or "tool")
    return f"Allow {tool_summary(tool, props.get('args'))}? [y]es once, [a]lways, [n]o: "


def permission_reply(answer: str | None) -> str | None:
    """The reply word for an answer (end of input rejects); ``None`` if not understood."""
    if answer is None:
        return "reject"
    return PERMISSION_REPLIES.get(answer.strip().lower())


def question_text(question: Mapping[str, Any]) -> str:
    """A question with its numbered options."""
    header = question.get("header")
    lines = [f"? {header + ': ' if header else ''}{question.get('question', '')}"]
    for number, option in enumerate(question.get("options") or [], start=1):
        description = option.get("description") if isinstance(option, Mapping) else ""
        label = option.get("label") if isinstance(option, Mapping) else option
        lines.append(f"  {number}) {label}" + (f": {description}" if description else ""))
    return "\n".join(lines) + "\n"


def question_answer(answer: str, question: Mapping[str, Any]) -> list[str]:
    """Option numbers (comma-separated when ``multiple``) become labels; other text is kept."""
    options: Sequence[Any] = question.get("options") or []
    labels = [o.get("label") if isinstance(o, Mapping) else str(o) for o in options]
    pieces = [p.strip() for p in answer.split(",")] if question.get("multiple") else [answer]
    chosen = []
    for piece in pieces:
        piece = piece.strip()
        if piece.isdigit() and 1 <= int(piece) <= len(labels):
            chosen.append(str(labels[int(piece) - 1]))
        elif piece:
            chosen.append(piece)
    return chosen
