"""Failure candidates from log lines (reference §1.19 step 5): JSON lines or plain text."""

from __future__ import annotations

import json
from typing import Any

import attrs

ERROR_WORDS = (
    "fatal",
    "panic",
    "critical",
    "error",
    "exception",
    "traceback",
    "typeerror",
    "referenceerror",
    "syntaxerror",
)
CONTINUATION = ("at ", 'File "', "Caused by", "Traceback", "stack backtrace")


@attrs.frozen
class Line:
    text: str
    start: int
    end: int


@attrs.frozen
class Candidate:
    level: str
    event: str
    lines: tuple[str, ...]
    start: int
    end: int
    component: str | None = None


def _dig(obj: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value: Any = obj
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value not in (None, ""):
            return value
    return None


def _level_ok(level: str, minimum: str) -> bool:
    level = level.lower()
    if any(w in level for w in ("error", "fatal", "panic")) or level == "critical":
        return True
    return minimum == "warn" and "warn" in level


def _json_candidate(line: Line, data: dict[str, Any], minimum: str) -> Candidate | None:
    level = str(_dig(data, "level", "severity", "log.level", "lvl") or "info")
    if not _level_ok(level, minimum):
        return None
    message = str(_dig(data, "message", "msg", "error", "exception.message") or line.text)
    event = str(_dig(data, "event", "event.name", "error.kind", "exception.type") or "log.error")
    stack = _dig(data, "stack", "stacktrace", "exception.stacktrace", "error.stack")
    lines = [message]
    if isinstance(stack, str):
        lines.extend(stack.splitlines()[:20])
    component = _dig(data, "component", "service", "logger", "target", "module")
    return Candidate(
        level.lower(),
        event,
        tuple(lines),
        line.start,
        line.end,
        str(component) if component else None,
    )


def _hit(text: str, minimum: str) -> str | None:
    lowered = text.lower()
    if any(w in lowered for w in ERROR_WORDS):
        return "error"
    if minimum == "warn" and "warn" in lowered:
        return "warn"
    return None


def _timestamped(text: str) -> bool:
    return len(text) > 7 and text[4] == "-" and text[7] == "-"


def parse(lines: list[Line], fmt: str, minimum: str) -> list[Candidate]:
    out: list[Candidate] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        data: Any = None
        if fmt in ("json", "auto") and line.text.lstrip().startswith("{"):
            try:
                data = json.loads(line.text)
            except ValueError:
                data = None
        if isinstance(data, dict):
            candidate = _json_candidate(line, data, minimum)
            if candidate is not None:
                out.append(candidate)
            i += 1
            continue
        if fmt == "json":
            i += 1
            continue
        level = _hit(line.text, minimum)
        if level is None:
            i += 1
            continue
        block = [line]
        j = i + 1
        while j < len(lines) and len(block) < 51:
            text = lines[j].text
            follows = not text.strip() or text[:1].isspace() or text.startswith(CONTINUATION)
            if not follows or _timestamped(text) or _hit(text, minimum):
                break
            block.append(lines[j])
            j += 1
        out.append(
            Candidate(
                level, "log.error", tuple(b.text for b in block), block[0].start, block[-1].end
            )
        )
        i = j
    return out
